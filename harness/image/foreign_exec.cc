#include "image/foreign_exec.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "util/process.h"

namespace foliolab {
namespace {

constexpr int kSetupFailed = 125;
constexpr const char* kBinfmtDir = "/proc/sys/fs/binfmt_misc";

bool write_text(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

[[noreturn]] void child_fail(const std::string& what) {
  std::fprintf(stderr, "foliolab %s: %s: %s\n", kForeignExecCommand, what.c_str(),
               std::strerror(errno));
  _exit(kSetupFailed);
}

// The child: its own user namespace (the parent maps its ids), then its own mount namespace
// with a private binfmt_misc, then the program.
[[noreturn]] void child(int ready_fd, int go_fd, const std::string& registration,
                        const std::vector<std::string>& argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::unshare(CLONE_NEWUSER) != 0) child_fail("unshare(CLONE_NEWUSER)");
  char byte = 1;
  if (::write(ready_fd, &byte, 1) != 1) child_fail("signalling the parent");
  if (::read(go_fd, &byte, 1) != 1) _exit(kSetupFailed);  // the parent could not map our ids
  if (::unshare(CLONE_NEWNS) != 0) child_fail("unshare(CLONE_NEWNS)");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    child_fail("making / private");
  if (::mount("binfmt_misc", kBinfmtDir, "binfmt_misc", 0, nullptr) != 0) {
    child_fail(
        "mounting a private binfmt_misc (needs Linux 6.7 or later, where binfmt_misc is per user "
        "namespace)");
  }
  if (!write_text(std::string(kBinfmtDir) + "/register", registration))
    child_fail("registering " + registration);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  ::execvp(cargv[0], cargv.data());
  child_fail("exec " + argv[0]);
}

}  // namespace

std::vector<std::string> foreign_exec_argv(const std::filesystem::path& self_exe, Arch arch,
                                           const std::vector<std::string>& argv) {
  std::vector<std::string> out = {self_exe.string(), kForeignExecCommand,
                                  std::string(arch_info(arch).name), "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

bool binfmt_per_user_namespace(const std::string& release) {
  int major = 0, minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 7);
}

bool host_binfmt_per_user_namespace() {
  utsname u{};
  return ::uname(&u) == 0 && binfmt_per_user_namespace(u.release);
}

std::string binfmt_registration(Arch arch, const std::string& interpreter) {
  const ArchInfo& a = arch_info(arch);
  return fmt::format(":foliolab-{}:M::{}:{}:{}:FOC", a.name, a.binfmt_magic, a.binfmt_mask,
                     interpreter);
}

int foreign_exec_main(const std::vector<std::string>& args) {
  if (args.size() < 3 || args[1] != "--") {
    std::fprintf(stderr, "usage: foliolab %s ARCH -- PROGRAM [ARGS...]\n", kForeignExecCommand);
    return 2;
  }
  const auto arch = parse_arch(args[0]);
  if (!arch) {
    std::fprintf(stderr, "foliolab %s: unknown arch '%s'\n", kForeignExecCommand, args[0].c_str());
    return 2;
  }
  const std::string interpreter = find_program(std::string(arch_info(*arch).qemu_user));
  if (interpreter.empty()) {
    std::fprintf(stderr, "foliolab %s: %s not found (Debian package qemu-user-static)\n",
                 kForeignExecCommand, std::string(arch_info(*arch).qemu_user).c_str());
    return kSetupFailed;
  }
  const std::vector<std::string> argv(args.begin() + 2, args.end());
  int ready[2], go[2];
  if (::pipe2(ready, O_CLOEXEC) != 0 || ::pipe2(go, O_CLOEXEC) != 0) return kSetupFailed;
  const pid_t pid = ::fork();
  if (pid < 0) return kSetupFailed;
  if (pid == 0) child(ready[1], go[0], binfmt_registration(*arch, interpreter), argv);
  ::close(ready[1]);
  ::close(go[0]);
  char byte = 0;
  bool mapped = ::read(ready[0], &byte, 1) == 1;
  // Every id to itself: root inside is root outside, so the files the program writes keep the
  // owners Debian gives them (the parent is root in the initial user namespace).
  const std::string map = "0 0 4294967295\n";
  const std::string proc = "/proc/" + std::to_string(pid);
  mapped = mapped && write_text(proc + "/uid_map", map) && write_text(proc + "/gid_map", map);
  if (!mapped) {
    std::fprintf(stderr, "foliolab %s: cannot map the ids of a user namespace: %s\n",
                 kForeignExecCommand, std::strerror(errno));
  } else if (::write(go[1], &byte, 1) != 1) {
    mapped = false;
  }
  ::close(go[1]);
  ::close(ready[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return kSetupFailed;
  }
  if (!mapped) return kSetupFailed;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace foliolab
