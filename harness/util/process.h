// Child processes: argument vectors only (never a shell string), stdin from /dev/null (or a file
// the spec names), their own process group, output captured and/or logged, and a deadline
// enforced in stages (SIGTERM to the whole group, then SIGKILL after a grace period) so a
// grandchild cannot hold the run open.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace foliolab {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH unless it contains a '/'
  std::filesystem::path cwd;               // empty: inherit
  std::map<std::string, std::string> env;  // added to / overriding the inherited environment
  std::filesystem::path log_path;          // if set, stdout+stderr are appended here
  std::filesystem::path stdin_path;        // if set, the child reads this file as stdin
  bool capture = false;                    // keep stdout+stderr in ProcessResult::output
  size_t capture_limit = 1 << 20;          // bytes kept; later output is dropped (tail kept in log)
  std::chrono::milliseconds timeout{0};    // 0: no deadline
  std::chrono::milliseconds kill_grace{3000};
  // Called with each complete output line (for progress displays).
  std::function<void(std::string_view line)> on_line;
  // Called about once a second while the child runs.
  std::function<void(std::chrono::milliseconds elapsed)> on_tick;
};

struct ProcessResult {
  int exit_code = -1;  // valid when !signaled and spawn_error is empty
  int signal = 0;      // terminating signal, 0 if exited normally
  bool timed_out = false;
  bool cancelled = false;
  std::string spawn_error;  // non-empty: the program could not be started
  std::string output;
  std::chrono::milliseconds elapsed{0};

  bool ok() const {
    return spawn_error.empty() && !timed_out && !cancelled && signal == 0 && exit_code == 0;
  }
  std::string describe() const;  // "exit status 2", "killed by signal 9", "timed out after 30s"
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

class RealProcessRunner : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override;
};

// Cooperative cancellation (SIGINT/SIGTERM handlers call request_cancel): a running child's
// group is stopped as if its deadline had passed, and callers check cancel_requested().
void request_cancel();
bool cancel_requested();

// Absolute path of `name` found in PATH, or "" if absent.
std::string find_program(const std::string& name);

// Last `n` lines of a file (for error messages pointing at a log).
std::string tail_lines(const std::filesystem::path& file, size_t n);

// Command line for humans (logs, reproduction notes); each argument shell-quoted when needed.
std::string format_argv(const std::vector<std::string>& argv);

}  // namespace foliolab
