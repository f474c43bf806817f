#include "runner/status.h"

#include <fmt/format.h>

#include <mutex>
#include <utility>

namespace foliolab {
namespace {

class LogLines : public RunStatus {
 public:
  explicit LogLines(std::function<void(const std::string&)> log) : log_(std::move(log)) {}
  void planned(int, int) override {}
  void note(const std::string& line) override { say(line); }
  void run_started(const std::string& run_id) override { say(fmt::format("  {} ...", run_id)); }
  void run_finished(const std::string& run_id, bool, const std::string& detail) override {
    say(fmt::format("  {}: {}", run_id, detail));
  }
  void build_progress(const std::string&, double, const std::string&) override {}

 private:
  void say(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    log_(line);
  }
  std::mutex mu_;
  std::function<void(const std::string&)> log_;
};

}  // namespace

std::unique_ptr<RunStatus> make_line_status(std::function<void(const std::string&)> log) {
  return std::make_unique<LogLines>(std::move(log));
}

}  // namespace foliolab
