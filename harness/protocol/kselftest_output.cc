#include "protocol/kselftest_output.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "catalog/kselftest_catalog.h"
#include "protocol/guest_text.h"
#include "protocol/tap.h"
#include "util/text.h"

namespace foliolab {
namespace {

struct KselftestBlock {
  std::string program;
  std::string body;  // the program's lines, "| " removed
  int64_t exit_status = -1, signal = 0, wall_ms = 0;
  bool timed_out = false, truncated = false;
};

// "key=value" fields of an end line; missing fields keep their defaults.
void end_fields(std::string_view rest, KselftestBlock& b) {
  while (!rest.empty()) {
    const size_t sp = rest.find(' ');
    const std::string_view field = rest.substr(0, sp);
    rest.remove_prefix(sp == std::string_view::npos ? rest.size() : sp + 1);
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = field.substr(0, eq);
    const int64_t v = std::atoll(std::string(field.substr(eq + 1, 18)).c_str());
    if (key == "exit") b.exit_status = v;
    if (key == "signal") b.signal = v;
    if (key == "timeout") b.timed_out = v != 0;
    if (key == "wall_ms") b.wall_ms = v;
    if (key == "truncated") b.truncated = v != 0;
  }
}

// The line's last carriage-return segment (progress counters redraw with \r).
std::string_view last_segment(std::string_view line) {
  if (const size_t cr = line.rfind('\r'); cr != std::string_view::npos) line.remove_prefix(cr + 1);
  return line;
}

// khugepaged (6.12) speaks no TAP: "Run test: <name> (<context>:<memory>)" headers, then lines
// "<step>... \e[32mOK\e[0m" (31m Fail, 33m skip). Each colored word is one result. Returns the
// last "Run test:" header (the test a program that exits early was in).
std::string colored_results(std::string_view body, std::vector<SubtestOutcome>& tests) {
  std::string test, last_text;
  for (std::string_view line : split_lines(body)) {
    line = last_segment(line);
    if (line.starts_with("Run test: ")) {
      test = bounded(trim(line.substr(10)), kMaxOutputName);
      continue;
    }
    const size_t esc = line.find("\x1b[3");
    if (esc == std::string_view::npos || esc + 5 > line.size() || line[esc + 4] != 'm') {
      if (!trim(line).empty()) last_text = bounded(trim(line), kMaxOutputName);
      continue;
    }
    std::string_view step = trim(line.substr(0, esc));
    while (!step.empty() && step.back() == '.') step.remove_suffix(1);
    std::string_view word = line.substr(esc + 5);
    word = word.substr(0, word.find('\x1b'));
    SubtestOutcome t;
    t.name = test.empty() ? "" : test + ": ";
    t.name += step.empty() ? last_text : bounded(step, kMaxOutputName);
    const char color = line[esc + 3];
    t.status = color == '2' ? "pass" : color == '1' ? "fail" : "skip";
    if (t.status == "skip") t.reason = bounded(trim(word), kMaxOutputName);
    if (tests.size() < kMaxTests) tests.push_back(std::move(t));
  }
  return test;
}

// kselftest programs announce a case with "# [RUN] <what>" (cow) and then print a generic
// result ("ok 3 No leak from parent into child", "ok 4 # SKIP ..."): the announcement goes
// into the result's name, so each case is told apart.
std::string name_cases(std::string_view body) {
  std::string out, pending;
  for (const std::string_view line : split_lines(body)) {
    if (line.starts_with("# [RUN] ")) {
      pending = bounded(trim(line.substr(8)), 160);
    } else if (!pending.empty() && (line.starts_with("ok ") || line.starts_with("not ok "))) {
      size_t at = line.starts_with("ok ") ? 3 : 7;
      while (at < line.size() && std::isdigit(static_cast<unsigned char>(line[at]))) ++at;
      std::string_view rest = trim(line.substr(at));
      if (rest.starts_with("- ")) rest.remove_prefix(2);
      out.append(line.substr(0, at)).append(" ").append(pending);
      if (!rest.empty()) out.append(rest.starts_with("#") ? " " : ": ").append(rest);
      out.append("\n");
      pending.clear();
      continue;
    }
    out.append(line).append("\n");
  }
  return out;
}

// The program's last words: the last line that is not a TAP plan, a total or a colored status,
// its last carriage-return segment.
std::string last_line(std::string_view body) {
  std::string last;
  for (std::string_view line : split_lines(body)) {
    if (line.find("\x1b[") != std::string_view::npos) continue;
    line = trim(last_segment(line));
    if (line.starts_with("# ")) line.remove_prefix(2);
    if (!line.empty() && !line.starts_with("Totals:") && !line.starts_with("1..")) {
      last = bounded(line, kMaxOutputName);
    }
  }
  return last;
}

// A failure the catalog expects on this machine (a test that needs swap, without swap) is a
// skip with the catalog's reason.
void apply_needs(const std::string& program, bool no_swap, SubtestOutcome& t) {
  for (const auto& need : kselftest_needs()) {
    if (need.program == program && std::string_view(t.name).starts_with(need.test_prefix) &&
        need.when == "no-swap" && no_swap) {
      t.status = "skip";
      t.reason = std::string(need.reason);
    }
  }
}

// The result the program adds of its own, if any, given its tests and its TAP reading.
std::optional<std::pair<std::string, std::string>> own_result(
    const KselftestBlock& b, const WorkloadOutput& tap, const std::vector<SubtestOutcome>& tests,
    bool any_fail) {
  const std::string last = last_line(b.body);
  if (b.timed_out) {
    return {{"fail", fmt::format("timed out after {} s and was killed", b.wall_ms / 1000)}};
  }
  if (b.signal != 0) return {{"fail", fmt::format("killed by signal {}", b.signal)}};
  if (tap.bailed_out) return {{"fail", "Bail out! " + tap.bail_reason}};
  if (b.exit_status == 4 && tests.empty()) {
    return {{"skip", last.empty() ? "the program skipped itself (exit status 4)" : last}};
  }
  if (b.exit_status != 0 && b.exit_status != 4 && !any_fail) {
    return {
        {"fail", fmt::format("exit status {}{}", b.exit_status, last.empty() ? "" : ": " + last)}};
  }
  if (!tap.tests.empty() && !tap.violation.empty() && !any_fail) {
    return {{"fail", tap.violation}};
  }
  if (tests.empty()) return {{"pass", ""}};
  return std::nullopt;
}

// One program's block as test results, named "<program>: <test>". A program that dies, times
// out, bails out or exits non-zero without a failing test adds one failed result of its own; a
// whole-program skip (exit 4, KSFT_SKIP) with no test lines is one skipped result.
std::vector<SubtestOutcome> block_results(const KselftestBlock& b, bool no_swap) {
  WorkloadOutput tap;
  parse_tap(name_cases(b.body), tap);
  std::vector<SubtestOutcome> tests = std::move(tap.tests);
  std::string in_test;  // colored programs: the test it was in when it ended
  if (tests.empty()) in_test = colored_results(b.body, tests);
  bool any_fail = false;
  for (auto& t : tests) {
    if (t.status == "fail") apply_needs(b.program, no_swap, t);
    any_fail = any_fail || t.status == "fail";
    t.name = bounded(t.name.empty() ? b.program : b.program + ": " + t.name, kMaxOutputName);
  }
  if (auto own = own_result(b, tap, tests, any_fail)) {
    const std::string own_name =
        in_test.empty() ? b.program : bounded(b.program + ": " + in_test, kMaxOutputName);
    tests.push_back({0, own_name, std::move(own->first), bounded(own->second, kMaxOutputName)});
  }
  if (b.truncated) {
    tests.push_back({0, b.program, "fail", "more than 2 MiB of output; the rest was cut"});
  }
  return tests;
}

// Reads the runner's framing line by line; each finished block's results join out.tests.
class KselftestReader {
 public:
  explicit KselftestReader(WorkloadOutput& out) : out_(out) {}

  void line(std::string_view line) {
    if (block_ && line.starts_with("|")) {
      line.remove_prefix(line.starts_with("| ") ? 2 : 1);
      if (block_->body.size() < (size_t{4} << 20)) block_->body.append(line).append("\n");
    } else if (line.starts_with("@kselftest env ")) {
      no_swap_ = line.find(" swap_kb=0") != std::string_view::npos;
    } else if (line.starts_with("@kselftest begin ")) {
      if (block_) {
        add_violation(out_, fmt::format("kselftest block {} has no end line", block_->program));
      }
      block_.emplace();
      block_->program = bounded(trim(line.substr(17)), 64);
    } else if (line.starts_with("@kselftest end ")) {
      end(line.substr(15));
    } else if (trim(line) == kWorkloadOk) {
      ++markers_;
    } else if (!read_fail_marker(trim(line), out_) && !trim(line).empty()) {
      add_problem(out_, fmt::format("kselftest runner: unexpected line \"{}\"", bounded(line, 80)));
    }
  }

  void finish() {
    if (block_) add_violation(out_, fmt::format("output ends inside {}'s block", block_->program));
    out_.ok_marker = markers_ == 1;
    if (markers_ > 1) {
      add_violation(out_, fmt::format("{} printed {} times", kWorkloadOk, markers_));
    }
    size_t counted[3] = {0, 0, 0};
    for (const auto& t : out_.tests) {
      ++counted[t.status == "pass" ? 0 : t.status == "fail" ? 1 : 2];
    }
    set_tap_counts(out_, counted[0], counted[1], counted[2]);
  }

 private:
  // "@kselftest end <program> key=value...": closes the open block of that program.
  void end(std::string_view rest) {
    const std::string name(rest.substr(0, rest.find(' ')));
    if (!block_ || block_->program != name) {
      add_violation(
          out_, fmt::format("kselftest end line for {} without its begin line", bounded(name, 64)));
      return;
    }
    end_fields(rest, *block_);
    for (auto& t : block_results(*block_, no_swap_)) {
      if (out_.tests.size() >= kMaxTests) break;
      t.number = static_cast<int>(out_.tests.size()) + 1;
      out_.tests.push_back(std::move(t));
    }
    block_.reset();
  }

  WorkloadOutput& out_;
  std::optional<KselftestBlock> block_;
  bool no_swap_ = false;
  size_t markers_ = 0;
};

}  // namespace

void parse_kselftest_output(std::string_view text, WorkloadOutput& out) {
  KselftestReader reader(out);
  for (const std::string_view line : split_lines(text)) reader.line(line);
  reader.finish();
}

}  // namespace foliolab
