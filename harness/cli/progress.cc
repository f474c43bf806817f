#include "cli/progress.h"

#include <unistd.h>

#include <fmt/format.h>

namespace foliolab::cli {

namespace {

std::string clock_text(double seconds) {
  const int s = static_cast<int>(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

void LineStatus::planned(int total, int kept) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ = total;
  done_ = kept;
  if (v_ != Verbosity::kQuiet && kept > 0)
    fmt::print(out_, "{} of {} runs kept from before\n", kept, total);
}

void LineStatus::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (v_ != Verbosity::kQuiet || line.rfind("warning", 0) == 0) fmt::print(out_, "{}\n", line);
}

void LineStatus::run_started(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (v_ == Verbosity::kVerbose) fmt::print(out_, "  {} ...\n", run_id);
}

void LineStatus::run_finished(const std::string& run_id, bool ok, const std::string& detail) {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  if (v_ == Verbosity::kQuiet && ok) return;
  fmt::print(out_, "  [{}/{}] {}: {}\n", done_, total_, run_id, detail);
  std::fflush(out_);
}

void LineStatus::build_progress(const std::string& what, double seconds, const std::string&) {
  std::lock_guard<std::mutex> lock(mu_);
  // A line a minute: CI logs show the build is alive without a line per make target.
  const int minute = static_cast<int>(seconds / 60);
  if (v_ == Verbosity::kQuiet || minute == last_minute_ || minute == 0) return;
  last_minute_ = minute;
  fmt::print(out_, "  {}: still running after {}\n", what, clock_text(seconds));
}

TerminalStatus::TerminalStatus(std::FILE* out, Verbosity v) : out_(out), v_(v) {
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!tick_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
      if (total_ > 0 || !build_.empty()) redraw();
    }
  });
}

TerminalStatus::~TerminalStatus() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    tick_.notify_all();
  }
  ticker_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_lines_ > 0) fmt::print(out_, "\033[{}F\033[J", drawn_lines_);  // leave no stale block
  std::fflush(out_);
}

std::string TerminalStatus::block() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const int fresh = done_ - kept_;
  std::string eta = "?";
  if (fresh > 0 && total_ > done_) eta = clock_text(elapsed / fresh * (total_ - done_));
  if (total_ == done_ && total_ > 0) eta = "0:00";
  std::string out = fmt::format("[{}/{}] running {} · failed {} · elapsed {} · ETA {}", done_,
                                total_, running_.size(), failed_, clock_text(elapsed), eta);
  for (const auto& [id, since] : running_) {
    out += fmt::format("\n  {} {}",
                       clock_text(std::chrono::duration<double>(Clock::now() - since).count()), id);
  }
  if (!build_.empty()) out += "\n  " + build_;
  return out;
}

void TerminalStatus::redraw() {
  if (v_ == Verbosity::kQuiet) return;
  std::string text = block();
  if (drawn_lines_ > 0) fmt::print(out_, "\033[{}F\033[J", drawn_lines_);
  fmt::print(out_, "{}\n", text);
  drawn_lines_ = 1;
  for (char c : text) drawn_lines_ += c == '\n';
  std::fflush(out_);
}

void TerminalStatus::print_above(const std::string& line) {
  if (drawn_lines_ > 0) fmt::print(out_, "\033[{}F\033[J", drawn_lines_);
  drawn_lines_ = 0;
  fmt::print(out_, "{}\n", line);
  redraw();
}

void TerminalStatus::planned(int total, int kept) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ = total;
  kept_ = done_ = kept;
  redraw();
}

void TerminalStatus::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (v_ != Verbosity::kQuiet || line.rfind("warning", 0) == 0) print_above(line);
}

void TerminalStatus::run_started(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  running_[run_id] = Clock::now();
  build_.clear();
  if (v_ == Verbosity::kVerbose) {
    print_above("  " + run_id + " ...");
  } else {
    redraw();
  }
}

void TerminalStatus::run_finished(const std::string& run_id, bool ok, const std::string& detail) {
  std::lock_guard<std::mutex> lock(mu_);
  running_.erase(run_id);
  ++done_;
  if (!ok) ++failed_;
  if (!ok || v_ == Verbosity::kVerbose) {
    print_above(fmt::format("  {}: {}", run_id, detail));
  } else {
    redraw();
  }
}

void TerminalStatus::build_progress(const std::string& what, double seconds,
                                    const std::string& last_line) {
  std::lock_guard<std::mutex> lock(mu_);
  build_ = fmt::format("{} {} {}", what, clock_text(seconds), last_line.substr(0, 60));
  redraw();
}

std::unique_ptr<RunStatus> make_status(std::FILE* out, Verbosity v) {
  if (::isatty(::fileno(out))) return std::make_unique<TerminalStatus>(out, v);
  return std::make_unique<LineStatus>(out, v);
}

}  // namespace foliolab::cli
