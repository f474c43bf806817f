#include "util/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>  // boost 1.74 asio uses std::exchange without including it

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <fstream>
#include <mutex>
#include <optional>

#include <fmt/format.h>

namespace foliolab {
namespace bp = boost::process;
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {
std::atomic<bool> g_cancel{false};
}  // namespace

void request_cancel() { g_cancel.store(true); }
bool cancel_requested() { return g_cancel.load(); }

std::string ProcessResult::describe() const {
  if (cancelled) return "cancelled";
  if (!spawn_error.empty()) return "could not start: " + spawn_error;
  if (timed_out) return fmt::format("timed out after {:.1f}s", elapsed.count() / 1000.0);
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

namespace {

// Collects output: appends to the log, keeps a bounded copy, splits lines for on_line.
class OutputSink {
 public:
  explicit OutputSink(const ProcessSpec& spec) : spec_(spec) {
    if (!spec.log_path.empty()) log_.open(spec.log_path, std::ios::app | std::ios::binary);
  }
  void feed(std::string_view data) {
    if (log_.is_open()) log_.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (spec_.capture && captured_.size() < spec_.capture_limit) {
      captured_.append(data.substr(0, spec_.capture_limit - captured_.size()));
    }
    if (!spec_.on_line) return;
    partial_.append(data);
    size_t start = 0;
    for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
      spec_.on_line(std::string_view(partial_).substr(start, nl - start));
    }
    partial_.erase(0, start);
    if (partial_.size() > 65536) partial_.clear();
  }
  void flush() {
    if (log_.is_open()) log_.flush();
  }
  std::string take() { return std::move(captured_); }

 private:
  const ProcessSpec& spec_;
  std::ofstream log_;
  std::string captured_;
  std::string partial_;
};

// Children die with foliolab however foliolab ends, SIGKILL included, in two layers:
// - DieWithParent: the direct child (QEMU, make, gcc) sets PR_SET_PDEATHSIG(SIGKILL) before exec.
//   The signal follows the death of the spawning *thread*; ProcessRunner::run waits for its child
//   on that thread, so the two end together.
// - GroupReaper: a process forked once per foliolab process holds one end of a socket whose other
//   end only foliolab has (close-on-exec). Each child registers its process group itself before
//   its exec (DieWithParent), and the parent does again after the spawn; it is removed at the end.
//   When the socket reads EOF (foliolab is gone), the reaper SIGKILLs every group still
//   registered: make's compilers and any other grandchild go too.
constexpr unsigned kCloseRangeCloexec = 1U << 2;  // CLOSE_RANGE_CLOEXEC (linux/close_range.h)

struct DieWithParent : bp::extend::handler {
  DieWithParent(pid_t p, int reaper) : parent(p), reaper_fd(reaper) {}
  pid_t parent;
  int reaper_fd;  // the GroupReaper's socket (close-on-exec: open here, gone after the exec)
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    // The child registers its own process group before it can start anything: were it left to
    // the parent after the spawn, a grandchild started at once could outlive a foliolab killed
    // in between. Only when it leads a group of its own (bp::group's setpgid ran first): never
    // foliolab's group.
    const int32_t group = static_cast<int32_t>(::getpgrp());
    if (reaper_fd >= 0 && group == ::getpid()) {
      (void)::send(reaper_fd, &group, sizeof group, MSG_NOSIGNAL);
    }
    // Only 0-2 cross exec: a descriptor leaked by a library or a test harness must not reach the
    // child (dash refuses `>&11`, and mmdebstrap's apt hooks are dash scripts that use the next
    // free descriptor). Marked close-on-exec rather than closed, so Boost's own exec-error pipe
    // still works; a kernel without close_range (before 5.11) keeps them, as before.
    ::syscall(SYS_close_range, 3U, ~0U, kCloseRangeCloexec);
  }
};

class GroupReaper {
 public:
  static GroupReaper& instance() {
    static GroupReaper reaper;
    return reaper;
  }
  void add(pid_t pgid) { send(static_cast<int32_t>(pgid)); }
  // The socket a child registers its group on before its exec (DieWithParent); the reaper is
  // started first if this process has none yet. -1 when it could not be started.
  int socket() {
    std::lock_guard<std::mutex> lock(mu_);
    if (owner_ != ::getpid()) start();
    return fd_;
  }
  void remove(pid_t pgid) { send(-static_cast<int32_t>(pgid)); }

 private:
  void send(int32_t msg) {
    std::lock_guard<std::mutex> lock(mu_);
    if (owner_ != ::getpid()) start();  // first use, or a fork of foliolab: a reaper of its own
    if (fd_ >= 0) (void)::send(fd_, &msg, sizeof msg, MSG_NOSIGNAL);
  }

  void start() {
    owner_ = ::getpid();
    fd_ = -1;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return;
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(sv[0]);
      ::close(sv[1]);
      return;
    }
    if (pid == 0) serve(sv[1]);  // never returns
    ::close(sv[1]);
    fd_ = sv[0];
  }

  // Runs in the forked child of a possibly multi-threaded process: async-signal-safe calls only.
  [[noreturn]] static void serve(int fd) {
    ::setsid();  // out of foliolab's process group and terminal: Ctrl-C or killpg do not reach it
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(sig, SIG_IGN);
    ::prctl(PR_SET_NAME, "foliolab-reaper");
    if (fd != 3) {
      ::dup2(fd, 3);
      fd = 3;
    }
    if (::syscall(SYS_close_range, 4U, ~0U, 0U) != 0) {
      for (int i = 4; i < 65536; ++i) ::close(i);
    }
    constexpr int kSlots = 4096;
    static pid_t groups[kSlots];
    int32_t msg = 0;
    for (;;) {
      ssize_t n = ::recv(fd, &msg, sizeof msg, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n != static_cast<ssize_t>(sizeof msg)) break;  // EOF: foliolab is gone
      if (msg > 0) {
        for (pid_t& g : groups) {
          if (g == 0) {
            g = msg;
            break;
          }
        }
      } else {
        for (pid_t& g : groups) {
          if (g == -msg) g = 0;
        }
      }
    }
    for (pid_t g : groups) {
      if (g > 0) ::kill(-g, SIGKILL);
    }
    ::_exit(0);
  }

  std::mutex mu_;
  pid_t owner_ = 0;
  int fd_ = -1;
};

bp::environment make_env(const ProcessSpec& spec) {
  bp::environment env = boost::this_process::environment();
  for (const auto& [k, v] : spec.env) env[k] = v;
  return env;
}

void signal_group(bp::group& group, int sig) {
  if (group.valid()) ::killpg(group.native_handle(), sig);
}

// The program argv[0] names (looked up in PATH unless it holds a '/'); empty and
// result.spawn_error set when there is none.
boost::filesystem::path resolve_program(const ProcessSpec& spec, ProcessResult& result) {
  if (spec.argv.empty()) {
    result.spawn_error = "empty argument vector";
    return {};
  }
  boost::filesystem::path exe = spec.argv[0];
  if (spec.argv[0].find('/') == std::string::npos) exe = bp::search_path(spec.argv[0]);
  if (exe.empty()) result.spawn_error = spec.argv[0] + ": not found in PATH";
  return exe;
}

// One child from its spawn to its reaping: output read from its pipe into the sink, the
// once-a-second tick, the deadline and the staged stop of its process group.
class Supervised {
 public:
  explicit Supervised(const ProcessSpec& spec)
      : spec_(spec), pipe_(ios_), sink_(spec), start_(Clock::now()), ticker_(ios_) {}

  // Starts the child; "" when it runs, else why it could not start.
  std::string spawn(const boost::filesystem::path& exe) {
    std::vector<std::string> args(spec_.argv.begin() + 1, spec_.argv.end());
    std::error_code spawn_ec;
    try {
      std::string cwd =
          spec_.cwd.empty() ? std::filesystem::current_path().string() : spec_.cwd.string();
      const int reaper_fd = GroupReaper::instance().socket();
      auto start = [&](auto&& input) {
        return bp::child(exe, bp::args(args), (bp::std_out & bp::std_err) > pipe_, input,
                         bp::start_dir(cwd), make_env(spec_), group_,
                         DieWithParent(::getpid(), reaper_fd), spawn_ec);
      };
      child_ = spec_.stdin_path.empty()
                   ? start(bp::std_in < bp::null)
                   : start(bp::std_in < boost::filesystem::path(spec_.stdin_path.string()));
    } catch (const std::exception& e) {
      return e.what();
    }
    if (spawn_ec) return spawn_ec.message();
    pgid_ = group_.valid() ? group_.native_handle() : 0;
    if (pgid_ > 0) GroupReaper::instance().add(pgid_);
    read_more();
    if (spec_.on_tick) tick_later();
    return {};
  }

  // Runs until the child ends, its deadline passes or cancellation is asked; then stops its
  // group in stages (SIGTERM, SIGKILL after the grace period).
  void supervise(ProcessResult& result) {
    const auto far = Clock::now() + std::chrono::hours(24 * 365);
    if (run_until(spec_.timeout.count() > 0 ? start_ + spec_.timeout : far)) return;
    cancelling_ = true;
    result.cancelled = cancel_requested();
    result.timed_out = !result.cancelled;
    signal_group(group_, SIGTERM);
    if (!run_until(Clock::now() + spec_.kill_grace)) {
      signal_group(group_, SIGKILL);
      run_until(Clock::now() + std::chrono::seconds(10));
    }
  }

  // Kills what the child left in its group, waits for it and fills in how it ended.
  void reap(ProcessResult& result) {
    signal_group(group_, SIGKILL);
    ticker_.cancel();
    std::error_code wait_ec;
    child_.wait(wait_ec);
    if (pgid_ > 0) GroupReaper::instance().remove(pgid_);
    int status = child_.native_exit_code();
    if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    }
    result.elapsed = elapsed();
    sink_.flush();
    result.output = sink_.take();
  }

 private:
  std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
  }

  void read_more() {
    pipe_.async_read_some(asio::buffer(buf_),
                          [this](const boost::system::error_code& ec, size_t n) {
                            if (n > 0) sink_.feed(std::string_view(buf_.data(), n));
                            if (!ec) read_more();
                          });
  }

  void tick_later() {
    ticker_.expires_after(std::chrono::seconds(1));
    ticker_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      spec_.on_tick(elapsed());
      tick_later();
    });
  }

  // True when the child ended before `deadline` (or before a cancellation request, unless
  // the child is already being stopped).
  bool run_until(Clock::time_point deadline) {
    while (Clock::now() < deadline && !(cancel_requested() && !cancelling_)) {
      ios_.restart();
      // run_for returns once only the ticker is left (the read chain ended at EOF).
      ios_.run_for(
          std::min<Clock::duration>(deadline - Clock::now(), std::chrono::milliseconds(200)));
      if (!child_.running()) {
        // Drain what is left in the pipe without blocking forever on a grandchild.
        ios_.restart();
        ios_.run_for(std::chrono::milliseconds(50));
        return true;
      }
    }
    return false;
  }

  const ProcessSpec& spec_;
  asio::io_context ios_;
  bp::async_pipe pipe_;
  bp::group group_;
  OutputSink sink_;
  const Clock::time_point start_;
  bp::child child_;
  pid_t pgid_ = 0;
  std::array<char, 16384> buf_{};
  asio::steady_timer ticker_;
  bool cancelling_ = false;
};

}  // namespace

ProcessResult RealProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  const boost::filesystem::path exe = resolve_program(spec, result);
  if (exe.empty()) return result;
  Supervised child(spec);
  result.spawn_error = child.spawn(exe);
  if (!result.spawn_error.empty()) return result;
  child.supervise(result);
  child.reap(result);
  return result;
}

std::string find_program(const std::string& name) { return bp::search_path(name).string(); }

std::string tail_lines(const std::filesystem::path& file, size_t n) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  const size_t chunk = std::min<size_t>(size, 256 * 1024);
  std::string data(chunk, '\0');
  in.seekg(static_cast<std::streamoff>(size - chunk));
  in.read(data.data(), static_cast<std::streamsize>(chunk));
  size_t pos = data.size();
  if (pos > 0 && data[pos - 1] == '\n') --pos;
  for (size_t lines = 0; pos > 0; --pos) {
    if (data[pos - 1] == '\n' && ++lines == n) break;
  }
  return data.substr(pos);
}

std::string format_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !arg.empty() &&
                 arg.find_first_not_of(
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%") ==
                     std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace foliolab
