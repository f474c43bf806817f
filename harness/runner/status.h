// Progress of a session, as the runner and the kernel builder report it: they never print. The
// CLI renders it (cli/progress.h): one status block redrawn in place on a terminal, one plain
// line per event otherwise. Calls may come from several threads (`run -j N`); implementations
// serialize them.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace foliolab {

class RunStatus {
 public:
  virtual ~RunStatus() = default;
  // The session's size: `total` runs planned, `kept` of them finished in an earlier session.
  virtual void planned(int total, int kept) = 0;
  // A line for humans that is not about one run (accel verdicts, resume, warnings).
  virtual void note(const std::string& line) = 0;
  virtual void run_started(const std::string& run_id) = 0;
  // `detail`: "ok (7.8s, tcg)" or the failure's status and reason.
  virtual void run_finished(const std::string& run_id, bool ok, const std::string& detail) = 0;
  // A kernel build's make progress: what ("building 6.12 x86_64"), seconds so far, make's last
  // line.
  virtual void build_progress(const std::string& what, double seconds,
                              const std::string& last_line) = 0;
};

// Result<void> as plain lines through `log` (library callers and tests): "  <run> ..." as a run
// starts, "  <run>: <detail>" as it ends, notes as they are; the calls are serialized.
std::unique_ptr<RunStatus> make_line_status(std::function<void(const std::string&)> log);

}  // namespace foliolab
