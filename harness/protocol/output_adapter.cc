#include "protocol/output_adapter.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "protocol/guest_text.h"
#include "catalog/kselftest_catalog.h"

namespace foliolab {
namespace {

using nlohmann::json;

constexpr std::string_view kFormats[] = {"foliolab", "tap", "regex", "exit-status", "kselftest"};
constexpr size_t kUserFormats = 4;  // `kselftest` is kselftest-mm's own, not a custom output
constexpr size_t kMaxJsonDepth = 32;
constexpr size_t kMaxMetrics = 1024;
constexpr size_t kMaxNameLen = 256;

// Splits into lines without their "\r\n" / "\n"; calls f(line) until f returns false.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!f(line)) return;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void note(WorkloadOutput& out, std::string what) {
  if (out.problems.size() < 100) out.problems.push_back(std::move(what));
}

void violate(WorkloadOutput& out, std::string what) {
  if (out.violation.empty()) out.violation = std::move(what);
}

bool fail_marker(std::string_view line, WorkloadOutput& out) {
  if (!line.starts_with(kWorkloadFail)) return false;
  if (line.size() != kWorkloadFail.size() && line[kWorkloadFail.size()] != ' ') return false;
  out.fail_marker = true;
  if (out.fail_reason.empty()) out.fail_reason = bounded(trim(line.substr(kWorkloadFail.size())), 1024);
  return true;
}

void set_metric(WorkloadOutput& out, std::string_view name, double value) {
  if (!std::isfinite(value)) {
    note(out, fmt::format("metric {} is not finite", bounded(name, 128)));
    return;
  }
  if (!out.metrics.contains(std::string(name)) && out.metrics.size() >= kMaxMetrics) {
    note(out, "too many metrics, rest ignored");
    return;
  }
  out.metrics[bounded(name, kMaxNameLen)] = value;
}

// A JSON object line's numeric fields; false if the line is not a JSON object.
bool json_metrics(std::string_view line, WorkloadOutput& out) {
  if (line.empty() || line.front() != '{') return false;
  if (json_depth(line) > kMaxJsonDepth) {
    note(out, "JSON line nested too deeply, ignored");
    return false;
  }
  const json obj = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded() || !obj.is_object()) return false;
  for (const auto& [key, value] : obj.items()) {
    if (value.is_number()) set_metric(out, key, value.get<double>());
  }
  return true;
}

// foliolab: text lines, then exactly one JSON metrics line, then the single marker, last.
void parse_foliolab(std::string_view text, WorkloadOutput& out) {
  size_t metric_lines = 0, markers = 0;
  for_each_line(text, [&](std::string_view raw) {
    const std::string_view line = trim(raw);
    if (line == kWorkloadOk) {
      ++markers;
      return true;
    }
    if (fail_marker(line, out)) return true;
    if (markers > 0 && !line.empty()) {
      violate(out, fmt::format("output after {}: \"{}\"", kWorkloadOk, bounded(line, 80)));
      return true;
    }
    if (json_metrics(line, out)) ++metric_lines;
    return true;
  });
  out.ok_marker = markers > 0;
  if (markers > 1) violate(out, fmt::format("{} printed {} times", kWorkloadOk, markers));
  if (metric_lines > 1) {
    violate(out, fmt::format("{} metric lines; exactly one is allowed", metric_lines));
  }
  if (markers > 0 && metric_lines == 0) {
    violate(out, fmt::format("no metrics line before {}", kWorkloadOk));
  }
}

// "ok 3 - name # SKIP why" / "not ok 4 name # TODO later" (TAP 13 and 14).
bool tap_test_line(std::string_view line, WorkloadOutput& out) {
  bool pass = false;
  if (line.starts_with("ok") && (line.size() == 2 || line[2] == ' ')) {
    pass = true;
    line.remove_prefix(2);
  } else if (line.starts_with("not ok") && (line.size() == 6 || line[6] == ' ')) {
    line.remove_prefix(6);
  } else {
    return false;
  }
  line = trim(line);
  SubtestOutcome t;
  t.number = static_cast<int>(out.tests.size()) + 1;
  size_t digits = 0;
  while (digits < line.size() && digits < 9 && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits > 0 && (digits == line.size() || line[digits] == ' ')) {
    t.number = std::atoi(std::string(line.substr(0, digits)).c_str());
    line = trim(line.substr(digits));
  }
  if (line.starts_with("- ")) line.remove_prefix(2);
  std::string_view directive;
  if (const size_t hash = line.find(" # "); hash != std::string_view::npos) {
    directive = trim(line.substr(hash + 3));
    line = trim(line.substr(0, hash));
  } else if (line.starts_with("# ")) {
    directive = trim(line.substr(2));
    line = {};
  }
  t.name = bounded(line, kMaxNameLen);
  t.status = pass ? "pass" : "fail";
  auto has_word = [&](std::string_view word) {
    if (directive.size() < word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(directive[i])) != word[i]) return false;
    }
    return directive.size() == word.size() || directive[word.size()] == ' ' ||
           directive[word.size()] == ':';
  };
  if (has_word("SKIP")) {
    t.status = "skip";
    t.reason = bounded(trim(directive.substr(4)), kMaxNameLen);
  } else if (has_word("TODO")) {
    t.status = "skip";  // a TODO test's result does not count (TAP): kept, as a skip
    t.reason = bounded(directive, kMaxNameLen);
  }
  if (out.tests.size() < kMaxTests) {
    out.tests.push_back(std::move(t));
  } else if (out.tests.size() == kMaxTests) {
    note(out, fmt::format("more than {} tests; the rest are not kept", kMaxTests));
  }
  return true;
}

void parse_tap(std::string_view text, WorkloadOutput& out) {
  std::optional<int64_t> planned;
  bool in_yaml = false;
  size_t counted[3] = {0, 0, 0};  // pass, fail, skip over every test line, kept or not
  for_each_line(text, [&](std::string_view line) {
    // YAML diagnostics ("  ---" ... "  ...") and subtests (indented) belong to their parent.
    if (in_yaml) {
      in_yaml = trim(line) != "...";
      return true;
    }
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      in_yaml = trim(line) == "---";
      return true;
    }
    if (line.starts_with("Bail out!")) {
      out.bailed_out = true;
      out.bail_reason = bounded(trim(line.substr(9)), 1024);
      return false;  // nothing after a bail-out counts
    }
    if (fail_marker(line, out)) return true;
    if (line.starts_with("1..")) {
      const std::string_view rest = line.substr(3);
      const size_t end = rest.find_first_not_of("0123456789");
      const auto n = std::atoll(std::string(rest.substr(0, std::min<size_t>(end, 12))).c_str());
      if (planned) {
        violate(out, "two TAP plans");
      } else if (end == 0) {
        violate(out, fmt::format("bad TAP plan \"{}\"", bounded(line, 80)));
      } else {
        planned = n;
      }
      return true;
    }
    const size_t before = out.tests.size();
    if (tap_test_line(line, out)) {
      if (out.tests.size() > before) {
        const std::string& s = out.tests.back().status;
        ++counted[s == "pass" ? 0 : s == "fail" ? 1 : 2];
      } else {
        ++counted[1];  // beyond kMaxTests: counted as ran, status unknown, counted as failed
      }
    }
    return true;
  });
  const size_t ran = counted[0] + counted[1] + counted[2];
  out.metrics["tap.pass"] = static_cast<double>(counted[0]);
  out.metrics["tap.fail"] = static_cast<double>(counted[1]);
  out.metrics["tap.skip"] = static_cast<double>(counted[2]);
  if (out.bailed_out) return;
  if (!planned) {
    violate(out, fmt::format("no TAP plan (1..N) in the output ({} test lines)", ran));
  } else if (static_cast<size_t>(*planned) != ran) {
    violate(out, fmt::format("TAP plan 1..{} but {} tests ran", *planned, ran));
  }
}

// ---- kselftest: blocks framed by workloads/kselftest-mm.c ----

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

// khugepaged (6.12) speaks no TAP: "Run test: <name> (<context>:<memory>)" headers, then lines
// "<step>... \e[32mOK\e[0m" (31m Fail, 33m skip). Each colored word is one result. Returns the
// last "Run test:" header (the test a program that exits early was in).
std::string colored_results(std::string_view body, std::vector<SubtestOutcome>& tests) {
  std::string test, last_text;
  for_each_line(body, [&](std::string_view line) {
    if (const size_t cr = line.rfind('\r'); cr != std::string_view::npos) line.remove_prefix(cr + 1);
    if (line.starts_with("Run test: ")) {
      test = bounded(trim(line.substr(10)), kMaxNameLen);
      return true;
    }
    const size_t esc = line.find("\x1b[3");
    if (esc == std::string_view::npos || esc + 5 > line.size() || line[esc + 4] != 'm') {
      if (!trim(line).empty()) last_text = bounded(trim(line), kMaxNameLen);
      return true;
    }
    std::string_view step = trim(line.substr(0, esc));
    while (!step.empty() && step.back() == '.') step.remove_suffix(1);
    std::string_view word = line.substr(esc + 5);
    word = word.substr(0, word.find('\x1b'));
    SubtestOutcome t;
    t.name = test.empty() ? "" : test + ": ";
    t.name += step.empty() ? last_text : bounded(step, kMaxNameLen);
    const char color = line[esc + 3];
    t.status = color == '2' ? "pass" : color == '1' ? "fail" : "skip";
    if (t.status == "skip") t.reason = bounded(trim(word), kMaxNameLen);
    if (tests.size() < kMaxTests) tests.push_back(std::move(t));
    return true;
  });
  return test;
}

// kselftest programs announce a case with "# [RUN] <what>" (cow) and then print a generic
// result ("ok 3 No leak from parent into child", "ok 4 # SKIP ..."): the announcement goes
// into the result's name, so each case is told apart.
std::string name_cases(std::string_view body) {
  std::string out, pending;
  for_each_line(body, [&](std::string_view line) {
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
      return true;
    }
    out.append(line).append("\n");
    return true;
  });
  return out;
}

// The program's last words: the last line that is not a TAP plan, a total or a colored status,
// its last carriage-return segment (progress counters redraw with \r).
std::string last_line(std::string_view body) {
  std::string last;
  for_each_line(body, [&](std::string_view line) {
    if (line.find("\x1b[") != std::string_view::npos) return true;
    if (const size_t cr = line.rfind('\r'); cr != std::string_view::npos) line.remove_prefix(cr + 1);
    line = trim(line);
    if (line.starts_with("# ")) line.remove_prefix(2);
    if (!line.empty() && !line.starts_with("Totals:") && !line.starts_with("1..")) last = bounded(line, kMaxNameLen);
    return true;
  });
  return last;
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
    if (t.status == "fail") {
      for (const auto& need : kselftest_needs()) {
        if (need.program == b.program && std::string_view(t.name).starts_with(need.test_prefix) &&
            need.when == "no-swap" && no_swap) {
          t.status = "skip";
          t.reason = std::string(need.reason);
        }
      }
    }
    any_fail = any_fail || t.status == "fail";
    t.name = bounded(t.name.empty() ? b.program : b.program + ": " + t.name, kMaxNameLen);
  }
  const std::string own_name = in_test.empty() ? b.program : bounded(b.program + ": " + in_test, kMaxNameLen);
  auto own = [&](std::string status, std::string reason) {
    tests.push_back({0, own_name, std::move(status), bounded(reason, kMaxNameLen)});
  };
  const std::string last = last_line(b.body);
  if (b.timed_out) {
    own("fail", fmt::format("timed out after {} s and was killed", b.wall_ms / 1000));
  } else if (b.signal != 0) {
    own("fail", fmt::format("killed by signal {}", b.signal));
  } else if (tap.bailed_out) {
    own("fail", "Bail out! " + tap.bail_reason);
  } else if (b.exit_status == 4 && tests.empty()) {
    own("skip", last.empty() ? "the program skipped itself (exit status 4)" : last);
  } else if (b.exit_status != 0 && b.exit_status != 4 && !any_fail) {
    own("fail", fmt::format("exit status {}{}", b.exit_status, last.empty() ? "" : ": " + last));
  } else if (!tap.tests.empty() && !tap.violation.empty() && !any_fail) {
    own("fail", tap.violation);
  } else if (tests.empty()) {
    own("pass", "");
  }
  if (b.truncated) tests.push_back({0, b.program, "fail", "more than 2 MiB of output; the rest was cut"});
  return tests;
}

void parse_kselftest(std::string_view text, WorkloadOutput& out) {
  std::optional<KselftestBlock> block;
  bool no_swap = false;
  size_t markers = 0;
  for_each_line(text, [&](std::string_view line) {
    if (block && line.starts_with("|")) {
      line.remove_prefix(line.starts_with("| ") ? 2 : 1);
      if (block->body.size() < (size_t{4} << 20)) block->body.append(line).append("\n");
      return true;
    }
    if (line.starts_with("@kselftest env ")) {
      no_swap = line.find(" swap_kb=0") != std::string_view::npos;
    } else if (line.starts_with("@kselftest begin ")) {
      if (block) violate(out, fmt::format("kselftest block {} has no end line", block->program));
      block.emplace();
      block->program = bounded(trim(line.substr(17)), 64);
    } else if (line.starts_with("@kselftest end ")) {
      std::string_view rest = line.substr(15);
      const std::string name(rest.substr(0, rest.find(' ')));
      if (!block || block->program != name) {
        violate(out, fmt::format("kselftest end line for {} without its begin line", bounded(name, 64)));
        return true;
      }
      end_fields(rest, *block);
      for (auto& t : block_results(*block, no_swap)) {
        if (out.tests.size() >= kMaxTests) break;
        t.number = static_cast<int>(out.tests.size()) + 1;
        out.tests.push_back(std::move(t));
      }
      block.reset();
    } else if (trim(line) == kWorkloadOk) {
      ++markers;
    } else if (!fail_marker(trim(line), out) && !trim(line).empty()) {
      note(out, fmt::format("kselftest runner: unexpected line \"{}\"", bounded(line, 80)));
    }
    return true;
  });
  if (block) violate(out, fmt::format("output ends inside {}'s block", block->program));
  out.ok_marker = markers == 1;
  if (markers > 1) violate(out, fmt::format("{} printed {} times", kWorkloadOk, markers));
  size_t counted[3] = {0, 0, 0};
  for (const auto& t : out.tests) ++counted[t.status == "pass" ? 0 : t.status == "fail" ? 1 : 2];
  out.metrics["tap.pass"] = static_cast<double>(counted[0]);
  out.metrics["tap.fail"] = static_cast<double>(counted[1]);
  out.metrics["tap.skip"] = static_cast<double>(counted[2]);
}

// The last line each pattern matches gives its metric: the capture must be a number.
void parse_regex(std::string_view text, const KeyValues& patterns, WorkloadOutput& out) {
  for (const auto& [name, pattern] : patterns) {
    std::optional<std::regex> re;
    try {
      re.emplace(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      violate(out, fmt::format("metric {}: invalid pattern: {}", name, e.what()));
      continue;
    }
    std::optional<std::string> capture;
    for_each_line(text, [&](std::string_view line) {
      const std::string bounded_line(line.substr(0, kMaxRegexLine));
      std::smatch m;
      try {
        if (std::regex_search(bounded_line, m, *re) && m.size() > 1 && m[1].matched) {
          capture = m[1].str();
        }
      } catch (const std::regex_error&) {
        // regex_search may give up on a pathological line (error_complexity, error_stack)
        note(out, fmt::format("metric {}: pattern could not be applied to a line", name));
      }
      return true;
    });
    if (!capture) {
      violate(out, fmt::format("metric {}: pattern '{}' matched no line", name, bounded(pattern, 80)));
      continue;
    }
    const std::string number(trim(*capture));
    char* end = nullptr;
    const double v = number.empty() ? NAN : std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v)) {
      violate(out, fmt::format("metric {}: captured \"{}\", not a number", name, bounded(number, 80)));
      continue;
    }
    set_metric(out, name, v);
  }
}

}  // namespace

std::string_view output_format_name(OutputFormat f) { return kFormats[static_cast<size_t>(f)]; }

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  for (size_t i = 0; i < kUserFormats; ++i) {
    if (kFormats[i] == name) return static_cast<OutputFormat>(i);
  }
  return std::nullopt;
}

OutputAdapter output_adapter_for(const WorkloadSpec& w) {
  OutputAdapter a;
  if (is_kselftest(w)) {
    a.format = OutputFormat::kKselftest;
    return a;
  }
  for (const auto& [key, value] : w.params) {
    if (key == "output") a.format = parse_output_format(value).value_or(OutputFormat::kFoliolab);
  }
  if (a.format == OutputFormat::kRegex) a.patterns = w.metric_patterns;
  return a;
}

WorkloadOutput parse_workload_output(std::string_view text, const OutputAdapter& adapter) {
  WorkloadOutput out;
  switch (adapter.format) {
    case OutputFormat::kFoliolab:
      parse_foliolab(text, out);
      break;
    case OutputFormat::kTap:
      parse_tap(text, out);
      break;
    case OutputFormat::kRegex:
      parse_regex(text, adapter.patterns, out);
      break;
    case OutputFormat::kExitStatus:
      break;
    case OutputFormat::kKselftest:
      parse_kselftest(text, out);
      break;
  }
  return out;
}

std::string workload_failure(OutputFormat format, const WorkloadOutput& out, int64_t exit_status,
                             int64_t signal) {
  if (signal != 0) return fmt::format("killed by signal {}", signal);
  if (format == OutputFormat::kTap) {
    if (out.bailed_out) {
      return "bailed out" + (out.bail_reason.empty() ? "" : ": " + out.bail_reason);
    }
    return out.violation;
  }
  if (out.fail_marker) {
    return fmt::format("failed: {} (exit status {})",
                       out.fail_reason.empty() ? "no reason given" : out.fail_reason, exit_status);
  }
  if (exit_status != 0) return fmt::format("exited with status {}", exit_status);
  if ((format == OutputFormat::kFoliolab || format == OutputFormat::kKselftest) && !out.ok_marker) {
    return fmt::format("did not print {}", kWorkloadOk);
  }
  return out.violation;
}

}  // namespace foliolab
