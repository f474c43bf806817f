// Renderers of RunStatus for the CLI. LineStatus: one plain line per event (CI logs, pipes).
// TerminalStatus: notes and failures scroll above a status block (done/total, running, failed,
// elapsed, ETA, the guests running now, a kernel build's progress) redrawn in place.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "runner/status.h"

namespace foliolab::cli {

enum class Verbosity { kQuiet, kNormal, kVerbose };

class LineStatus : public RunStatus {
 public:
  LineStatus(std::FILE* out, Verbosity v) : out_(out), v_(v) {}
  void planned(int total, int kept) override;
  void note(const std::string& line) override;
  void run_started(const std::string& run_id) override;
  void run_finished(const std::string& run_id, bool ok, const std::string& detail) override;
  void build_progress(const std::string& what, double seconds,
                      const std::string& last_line) override;

 private:
  std::mutex mu_;
  std::FILE* out_;
  Verbosity v_;
  int total_ = 0, done_ = 0;
  int last_minute_ = 0;
};

class TerminalStatus : public RunStatus {
 public:
  TerminalStatus(std::FILE* out, Verbosity v);
  ~TerminalStatus() override;
  void planned(int total, int kept) override;
  void note(const std::string& line) override;
  void run_started(const std::string& run_id) override;
  void run_finished(const std::string& run_id, bool ok, const std::string& detail) override;
  void build_progress(const std::string& what, double seconds,
                      const std::string& last_line) override;
  // The block's text now (without cursor movement), for tests and redraws.
  std::string block() const;

 private:
  using Clock = std::chrono::steady_clock;
  void redraw();                              // with mu_ held
  void print_above(const std::string& line);  // with mu_ held
  mutable std::mutex mu_;
  std::FILE* out_;
  Verbosity v_;
  Clock::time_point start_ = Clock::now();
  int total_ = 0, kept_ = 0, done_ = 0, failed_ = 0;
  std::map<std::string, Clock::time_point> running_;
  std::string build_;
  int drawn_lines_ = 0;
  bool stopping_ = false;
  std::condition_variable tick_;
  std::thread ticker_;  // redraws once a second: elapsed time and ETA move between events
};

// TerminalStatus when `out` is a terminal, LineStatus otherwise.
std::unique_ptr<RunStatus> make_status(std::FILE* out, Verbosity v);

}  // namespace foliolab::cli
