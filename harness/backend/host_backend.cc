#include "backend/host_backend.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <set>
#include <sstream>
#include <thread>

#include "image/image_builder.h"
#include "util/fs.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kThpDir = "/sys/kernel/mm/transparent_hugepage";
constexpr const char* kSysctlDir = "/proc/sys";

std::string host_release() {
  utsname u{};
  if (::uname(&u) != 0) return "unknown";
  return u.release;
}

// The base image and the job, unpacked into `root` as the guest's initramfs would be.
Result<void> unpack_root(const fs::path& root, const BootRequest& req) {
  auto base = read_file(req.base_image);
  if (!base.ok()) return base.error();
  auto entries = read_cpio(*base);
  if (!entries.ok()) return entries.error();
  for (auto& e : job_entries(req.job_text, req.job_files)) entries->push_back(std::move(e));
  std::error_code ec;
  for (const auto& e : *entries) {
    const fs::path rel = fs::path(e.path).lexically_normal();
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
      return make_error(fmt::format("image entry '{}' leaves the run's root", e.path));
    }
    const fs::path p = root / rel;
    if (e.kind == CpioEntry::Kind::kDir) {
      fs::create_directories(p, ec);
    } else if (e.kind == CpioEntry::Kind::kFile) {
      fs::create_directories(p.parent_path(), ec);
      if (auto st = write_file_atomic(p, e.data); !st.ok()) return st;
      fs::permissions(p, static_cast<fs::perms>(e.mode & 07777), ec);
    }  // device nodes: the agent mounts devtmpfs on /dev
    if (ec) return make_error(fmt::format("cannot unpack {}: {}", p.string(), ec.message()));
  }
  return {};
}

// A descriptor at 10 or above (so the child's dup2 onto 0-3 cannot clobber another), or -1.
int open_high(const fs::path& p, int flags) {
  int fd = ::open(p.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return high;
}

struct ChildFailure {
  int step;  // index into kSteps
  int err;
};
constexpr const char* kSteps[] = {"prctl(PR_SET_PDEATHSIG)",
                                  "making mounts private",
                                  "chroot",
                                  "chdir",
                                  "dup2",
                                  "close_range",
                                  "execve /init"};

struct Spawned {
  pid_t pid = -1;
  std::string error;
};

// Starts /init of `root` as PID 1 of a new PID and mount namespace. Everything the child uses is
// prepared here: between clone and execve it makes system calls only (the parent has threads).
Spawned spawn_agent(const fs::path& root, int null_fd, int console_fd, int records_fd) {
  const std::string root_s = root.string();
  char init[] = "/init";
  char* const argv[] = {init, nullptr};
  char env_home[] = "HOME=/", env_term[] = "TERM=linux", env_fd[] = "FOLIOLAB_RESULTS_FD=3";
  char* const envp[] = {env_home, env_term, env_fd, nullptr};
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return {-1, fmt_errno("pipe")};
  const long pid = ::syscall(SYS_clone, CLONE_NEWNS | CLONE_NEWPID | SIGCHLD, nullptr, nullptr,
                             nullptr, nullptr);
  if (pid == 0) {
    ChildFailure f{0, 0};
    auto fail = [&](int step) {
      f = {step, errno};
      (void)!::write(err_pipe[1], &f, sizeof f);
      ::_exit(127);
    };
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(0);  // foliolab gone: the namespace goes too
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail(1);
    if (::chroot(root_s.c_str()) != 0) fail(2);
    if (::chdir("/") != 0) fail(3);
    if (::dup2(null_fd, 0) < 0 || ::dup2(console_fd, 1) < 0 || ::dup2(console_fd, 2) < 0 ||
        ::dup2(records_fd, 3) < 0) {
      fail(4);
    }
    if (::syscall(SYS_close_range, 4u, ~0u, CLOSE_RANGE_CLOEXEC) != 0) fail(5);
    ::execve(init, argv, envp);
    fail(6);
  }
  ::close(err_pipe[1]);
  if (pid < 0) {
    ::close(err_pipe[0]);
    return {-1, fmt_errno("clone(CLONE_NEWNS | CLONE_NEWPID)")};
  }
  ChildFailure f{};
  ssize_t n;
  do n = ::read(err_pipe[0], &f, sizeof f);
  while (n < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof f)) {
    int status;
    ::waitpid(static_cast<pid_t>(pid), &status, 0);
    return {-1, fmt::format("{}: {}", kSteps[f.step], std::strerror(f.err))};
  }
  return {static_cast<pid_t>(pid), {}};
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return fmt::format("exit status {}", WEXITSTATUS(status));
}

// Every path the job writes exists under `sys_root` on this kernel.
Result<void> check_knob_paths(const std::vector<std::string>& paths, const fs::path& sys_root) {
  std::error_code ec;
  for (const auto& p : paths) {
    if (!fs::exists(sys_root / fs::path(p).relative_path(), ec)) {
      return make_error(
          fmt::format("backend host: this host's kernel {} has no {}", host_release(), p));
    }
  }
  return {};
}

// Starts the agent in `root` with its console and records going to out's files (truncated);
// sets out.command to the equivalent shell command.
Spawned start_agent(const fs::path& root, BootOutcome& out) {
  const int null_fd = open_high("/dev/null", O_RDONLY);
  const int console_fd = open_high(out.console_log, O_WRONLY | O_CREAT | O_TRUNC);
  const int records_fd = open_high(out.records_file, O_WRONLY | O_CREAT | O_TRUNC);
  out.command = fmt::format(
      "FOLIOLAB_RESULTS_FD=3 unshare --mount --pid --fork --propagation private chroot {} "
      "/init 3>{} >{} 2>&1  # root: the base image plus job/ (removed after the run)",
      root.string(), out.records_file.string(), out.console_log.string());
  Spawned child{-1, fmt_errno("cannot open the run's console log or record file")};
  if (null_fd >= 0 && console_fd >= 0 && records_fd >= 0)
    child = spawn_agent(root, null_fd, console_fd, records_fd);
  for (int fd : {null_fd, console_fd, records_fd}) {
    if (fd >= 0) ::close(fd);
  }
  return child;
}

// Waits for the agent to end, killing it at the deadline or on cancellation; fills in out's
// seconds, timed_out, abnormal_exit and exit.
void wait_for_agent(pid_t pid, std::chrono::seconds timeout, BootOutcome& out) {
  const auto start = std::chrono::steady_clock::now();
  bool killed = false, cancelled = false;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    const bool late = std::chrono::steady_clock::now() - start > timeout;
    if (!killed && (late || cancel_requested())) {
      cancelled = !late;
      out.timed_out = late;
      ::kill(pid, SIGKILL);  // PID 1 of its namespace: the workload dies with it
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.abnormal_exit = !killed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  out.exit = out.timed_out ? fmt::format("timed out after {}s", timeout.count())
             : cancelled   ? "cancelled"
                           : "agent " + describe_status(status);
}

}  // namespace

std::vector<std::string> job_knob_paths(const std::string& job_text) {
  std::vector<std::string> paths;
  std::istringstream in(job_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, path;
    words >> key >> path;
    if (key == "knob") paths.push_back(fmt::format("{}/{}", kThpDir, path));
    if (key == "sysctl") paths.push_back(fmt::format("{}/{}", kSysctlDir, path));
  }
  return paths;
}

HostBackend::HostBackend(HostBackendOptions options) : opt_(std::move(options)) {
  if (!opt_.is_root) opt_.is_root = [] { return ::geteuid() == 0; };
}

Result<AccelVerdict> HostBackend::resolve_accel(const AccelRequest&) {
  return AccelVerdict{Accel::kNone,
                      fmt::format("bare metal: this machine's kernel {}", host_release())};
}

Result<void> HostBackend::take_lock() {
  if (lock_) return {};
  auto lock = HostLock::acquire(opt_.state_dir);
  if (!lock.ok()) return lock.error();
  lock_.emplace(std::move(*lock));
  return {};
}

Result<void> HostBackend::preflight(const Experiment& exp, const std::vector<Run>& runs) {
  if (!opt_.is_root()) {
    return make_error(
        "backend host needs root: it writes the host's THP knobs under "
        "/sys/kernel/mm/transparent_hugepage and sysctls under /proc/sys (run as root, or use "
        "backend: qemu)");
  }
  const Arch here = host_arch();
  std::set<size_t> kernels;
  const std::string release = host_release();
  for (const Run& run : runs) {
    if (run.arch != here) {
      return make_error(
          fmt::format("backend host runs on this {} machine only, but the plan has {} runs (use "
                      "--arch {})",
                      arch_info(here).name, arch_info(run.arch).name, arch_info(here).name));
    }
    kernels.insert(run.kernel);
    const KnobSet& ks = exp.knob_sets[run.knob_set];
    if (!ks.cmdline.empty()) {
      return make_error(fmt::format(
          "backend host cannot apply knob set '{}''s kernel command line '{}': the host "
          "kernel {} is already booted",
          ks.name, ks.cmdline, release));
    }
    auto missing = [&](const std::string& path, const std::string& what) -> Result<void> {
      std::error_code ec;
      if (fs::exists(opt_.sys_root / fs::path(path).relative_path(), ec)) return {};
      return make_error(
          fmt::format("backend host: this host's kernel {} has no {} {} ({}), which knob set '{}' "
                      "sets",
                      release, what, path.substr(path.rfind('/') + 1), path, ks.name));
    };
    for (const auto& [path, value] : ks.knobs) {
      if (auto st = missing(fmt::format("{}/{}", kThpDir, path), "THP knob"); !st.ok()) return st;
    }
    for (const auto& [path, value] : ks.sysctls) {
      if (auto st = missing(fmt::format("{}/{}", kSysctlDir, path), "sysctl"); !st.ok()) return st;
    }
  }
  if (kernels.size() > 1) {
    return make_error(
        fmt::format("backend host runs this host's kernel {}; the plan names {} kernels (keep one)",
                    release, kernels.size()));
  }
  return take_lock();
}

Result<BootOutcome> HostBackend::boot(const BootRequest& req) {
  std::lock_guard<std::mutex> one_at_a_time(mu_);
  if (auto st = take_lock(); !st.ok()) return st.error();
  BootOutcome out;
  out.backend = name();
  out.accel = Accel::kNone;
  out.emulator = fmt::format("bare metal: Linux {} ({})", host_release(),
                             arch_info(host_arch()).uname_machine);
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  const fs::path root = req.run_dir / "root";
  std::error_code ec;
  fs::create_directories(req.run_dir, ec);
  fs::remove_all(root, ec);
  fs::create_directories(root, ec);
  struct RootCleanup {
    fs::path dir;
    ~RootCleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{root};
  if (auto st = unpack_root(root, req); !st.ok())
    return make_error("host backend: " + st.error().message);

  const auto paths = job_knob_paths(req.job_text);
  if (auto st = check_knob_paths(paths, opt_.sys_root); !st.ok()) return st.error();
  KnobJournal journal(journal_path(opt_.state_dir), opt_.sys_root);
  if (auto st = journal.save(paths); !st.ok()) return st.error();
  // From here on every way out restores the knobs, an exception included.
  struct Restorer {
    KnobJournal& j;
    bool done = false;
    Result<std::vector<JournalEntry>> now() {
      done = true;
      return j.restore();
    }
    ~Restorer() {
      if (!done) (void)j.restore();
    }
  } restorer{journal};

  const Spawned child = start_agent(root, out);
  if (child.pid < 0) {
    auto restored = restorer.now();
    return make_error("host backend: cannot start the agent: " + child.error +
                      (restored.ok() ? "" : "; " + restored.error().message));
  }
  wait_for_agent(child.pid, req.timeout, out);
  if (auto restored = restorer.now(); !restored.ok()) return restored.error();
  return out;
}

}  // namespace foliolab
