#include "testing/standin_lab.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "backend/ssh_target.h"
#include "testing/loopback_port.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

pid_t spawn_qemu(const std::vector<std::string>& argv, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, 0);
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  ::_exit(127);
}

}  // namespace

Result<std::unique_ptr<StandinLab>> StandinLab::start(const fs::path& dir, Arch arch,
                                                      const fs::path& kernel,
                                                      const fs::path& disk) {
  std::unique_ptr<StandinLab> lab(new StandinLab(dir, free_loopback_port(), free_loopback_port()));
  RealProcessRunner proc;
  std::error_code ec;
  fs::remove(lab->key(), ec);
  fs::remove(lab->key().string() + ".pub", ec);
  ProcessResult keygen = proc.run({.argv = {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                                            "foliolab-e2e", "-f", lab->key().string()},
                                   .capture = true});
  if (!keygen.ok()) return make_error("ssh-keygen: " + keygen.describe() + keygen.output);
  auto pub = read_file(lab->key().string() + ".pub");
  FL_TRY(pub);
  const auto words = split_words(*pub);  // "ssh-ed25519 AAAA... foliolab-e2e"
  if (words.size() < 2) return make_error("ssh-keygen wrote no public key");
  const bool arm64 = arch == Arch::kArm64;
  const std::string mmio = arm64 ? "device" : "pci";
  const std::vector<std::string> argv = {
      arm64 ? "qemu-system-aarch64" : "qemu-system-x86_64",
      "-M",
      arm64 ? "virt,dtb-randomness=off" : "q35",
      "-cpu",
      "max",
      "-m",
      "1G",
      "-smp",
      "1",
      "-accel",
      "tcg",
      "-display",
      "none",
      "-no-user-config",
      "-nodefaults",
      "-serial",
      "file:" + lab->console().string(),
      "-monitor",
      fmt::format("tcp:127.0.0.1:{},server,nowait", lab->monitor_port_),
      "-kernel",
      kernel.string(),
      "-append",
      fmt::format("console={} root=/dev/vda rw init=/sbin/kexec-lab-init lab.key={}",
                  arm64 ? "ttyAMA0" : "ttyS0", words[1]),
      "-drive",
      fmt::format("file={},if=none,id=d0,format=raw,snapshot=on", disk.string()),
      "-device",
      "virtio-blk-" + mmio + ",drive=d0",
      "-netdev",
      fmt::format("user,id=n0,hostfwd=tcp:127.0.0.1:{}-:22", lab->ssh_port_),
      "-device",
      "virtio-net-" + mmio + ",netdev=n0"};
  lab->qemu_ = spawn_qemu(argv, dir / "standin-qemu.log");
  if (lab->qemu_ < 0) return make_error("cannot fork for QEMU");
  FL_TRY(lab->wait_for_sshd());
  return lab;
}

Result<void> StandinLab::wait_for_sshd() {
  RealProcessRunner proc;
  const auto deadline = std::chrono::steady_clock::now() + 10min;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(qemu_, &status, WNOHANG) == qemu_) {
      qemu_ = -1;
      return make_error("the stand-in's QEMU ended: " + tail_lines(dir_ / "standin-qemu.log", 5));
    }
    ProcessResult scan = proc.run({.argv = {"ssh-keyscan", "-T", "5", "-t", "ed25519", "-p",
                                            std::to_string(ssh_port_), "127.0.0.1"},
                                   .capture = true,
                                   .timeout = 30s});
    if (scan.ok() && scan.output.find("ssh-ed25519") != std::string::npos) {
      std::string keys;
      for (const auto& line : split_lines(scan.output)) {
        if (!line.empty() && line[0] != '#') keys += std::string(line) + "\n";
      }
      FL_TRY(write_file_atomic(known_hosts(), keys));
      if (!boot_id().empty()) return {};
    }
    std::this_thread::sleep_for(2s);
  }
  return make_error("the stand-in's sshd did not answer within 10 min; console: " +
                    tail_lines(console(), 10));
}

StandinLab::~StandinLab() {
  if (qemu_ <= 0) return;
  ::kill(qemu_, SIGKILL);
  int status = 0;
  ::waitpid(qemu_, &status, 0);
}

std::string StandinLab::uri() const { return fmt::format("ssh://root@127.0.0.1:{}", ssh_port_); }

ProcessResult StandinLab::ssh(const std::vector<std::string>& remote_argv) const {
  SshTarget t{
      .host = "127.0.0.1", .port = ssh_port_, .identity = key(), .known_hosts = known_hosts()};
  RealProcessRunner proc;
  return proc.run({.argv = ssh_argv(t, remote_argv), .capture = true, .timeout = 60s});
}

std::string StandinLab::answer(const std::string& command) const {
  ProcessResult r = ssh({"sh", "-c", command});
  return r.ok() ? std::string(trim(r.output)) : std::string();
}

std::string StandinLab::boot_id() const { return answer("cat /proc/sys/kernel/random/boot_id"); }
std::string StandinLab::release() const { return answer("uname -r"); }

}  // namespace foliolab
