// Test helper: a private libvirtd, started by the test as root, with its own configuration and
// sockets. A privileged libvirtd keeps its state in fixed places (/etc/libvirt, /run/libvirt,
// /var/{lib,cache,log}/libvirt); the daemon runs in a mount namespace of its own where those
// are bind mounts of directories under the test's directory, so nothing of the machine's is
// read or written and two tests never meet. Its sockets live in <dir>/sock, outside the
// namespace's mounts, so the test reaches it with qemu:///system?socket=<dir>/sock/libvirt-sock.
//
// qemu.conf runs QEMU as root without a security driver (the run directories are root's 0700
// temp dirs; the alternative, chowning them to libvirt-qemu, would change what the test
// checks), without cgroups or per-domain /dev namespaces (no systemd, a container), and with
// stdio_handler "file": QEMU writes the console and the result stream itself, as under the QEMU
// backend, so no virtlogd is needed.
#pragma once

#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "util/fs.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

class LibvirtDaemon {
 public:
  LibvirtDaemon(const LibvirtDaemon&) = delete;
  LibvirtDaemon& operator=(const LibvirtDaemon&) = delete;

  // `extra_conf` is appended to libvirtd.conf (e.g. a TCP listener); `args` to its command line.
  static Result<std::unique_ptr<LibvirtDaemon>> start(const std::filesystem::path& dir,
                                                      const std::string& extra_conf = "",
                                                      const std::vector<std::string>& args = {}) {
    virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});  // "not listening yet" is expected below
    std::unique_ptr<LibvirtDaemon> d(new LibvirtDaemon(dir));
    if (auto st = write_config(dir, extra_conf); !st.ok()) return st.error();
    std::vector<std::string> argv = {"/usr/sbin/libvirtd", "--config",
                                     (dir / "etc/libvirtd.conf").string(), "--pid-file",
                                     (dir / "libvirtd.pid").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto pid = spawn(dir, argv);
    if (!pid.ok()) return pid.error();
    d->pid_ = *pid;
    if (auto st = d->wait_ready(); !st.ok()) return st.error();
    return d;
  }

  ~LibvirtDaemon() { stop(); }

  std::string uri() const {
    return "qemu:///system?socket=" + (dir_ / "sock/libvirt-sock").string();
  }
  pid_t pid() const { return pid_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string log_tail() const { return tail_lines(dir_ / "libvirtd.log", 20); }

  // Destroys what is still running, then ends the daemon (SIGTERM, SIGKILL after 30 s).
  void stop() {
    if (pid_ <= 0) return;
    if (virConnectPtr c = virConnectOpen(uri().c_str())) {
      virDomainPtr* doms = nullptr;
      const int n = virConnectListAllDomains(c, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
      for (int i = 0; i < n; ++i) {
        virDomainDestroy(doms[i]);
        virDomainFree(doms[i]);
      }
      free(doms);
      virConnectClose(c);
    }
    ::kill(pid_, SIGTERM);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() > give_up) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    pid_ = -1;
  }

 private:
  static constexpr const char* kTargets[] = {"/etc/libvirt", "/run/libvirt", "/var/lib/libvirt",
                                             "/var/cache/libvirt", "/var/log/libvirt"};
  explicit LibvirtDaemon(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // A fresh `dir` with libvirtd.conf and qemu.conf, and the mount points of kTargets.
  static Result<void> write_config(const std::filesystem::path& dir,
                                   const std::string& extra_conf) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::remove_all(dir, ec);
    for (const char* sub : {"etc", "run", "lib", "cache", "log", "sock"})
      fs::create_directories(dir / sub, ec);
    for (const char* target : kTargets) fs::create_directories(target, ec);  // mount points
    auto st = write_file_atomic(
        dir / "etc/libvirtd.conf",
        fmt::format("unix_sock_dir = \"{}\"\nauth_unix_rw = \"none\"\nauth_unix_ro = \"none\"\n"
                    "log_outputs = \"3:file:{}\"\n{}",
                    (dir / "sock").string(), (dir / "libvirtd.log").string(), extra_conf));
    if (!st.ok()) return st;
    return write_file_atomic(
        dir / "etc/qemu.conf",
        "user = \"root\"\ngroup = \"root\"\ndynamic_ownership = 0\nsecurity_driver = \"none\"\n"
        "stdio_handler = \"file\"\ncgroup_controllers = [ ]\nnamespaces = [ ]\n");
  }

  // Forks `argv` into a mount namespace of its own with dir's subdirectories bound over
  // kTargets, its output in <dir>/daemon.out.
  static Result<pid_t> spawn(const std::filesystem::path& dir, std::vector<std::string>& argv) {
    // Everything the child needs, prepared before fork (only syscalls after it).
    const std::vector<std::string> sources = {(dir / "etc").string(), (dir / "run").string(),
                                              (dir / "lib").string(), (dir / "cache").string(),
                                              (dir / "log").string()};
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const std::string out = (dir / "daemon.out").string();
    const pid_t pid = ::fork();
    if (pid < 0) return make_error("fork: " + std::string(strerror(errno)));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // a test that dies takes its daemon along
      int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      if (::unshare(CLONE_NEWNS) != 0 ||
          ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
        ::_exit(120);
      }
      for (size_t i = 0; i < sources.size(); ++i) {
        if (::mount(sources[i].c_str(), kTargets[i], nullptr, MS_BIND, nullptr) != 0) ::_exit(121);
      }
      ::execv(cargv[0], cargv.data());
      ::_exit(127);
    }
    return pid;
  }

  // Ready when a client gets in. The bound only keeps a daemon that never listens from hanging
  // the test; a slow machine just waits longer.
  Result<void> wait_ready() {
    const std::string out = (dir_ / "daemon.out").string();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (true) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return make_error(fmt::format("libvirtd ended at start (status {}): {} {}", status,
                                      read_file(out).ok() ? *read_file(out) : "", log_tail()));
      }
      if (virConnectPtr c = virConnectOpen(uri().c_str())) {
        virConnectClose(c);
        return {};
      }
      if (std::chrono::steady_clock::now() > give_up) {
        return make_error("libvirtd did not accept connections within 2 minutes: " + log_tail());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  std::filesystem::path dir_;
  pid_t pid_ = -1;
};

}  // namespace foliolab
