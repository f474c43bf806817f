#include "guest/output_adapter.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "guest/guest_text.h"

namespace foliolab {
namespace {

using nlohmann::json;

constexpr std::string_view kFormats[] = {"foliolab", "tap", "regex", "exit-status"};
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
  TestOutcome t;
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
  for (size_t i = 0; i < std::size(kFormats); ++i) {
    if (kFormats[i] == name) return static_cast<OutputFormat>(i);
  }
  return std::nullopt;
}

OutputAdapter output_adapter_for(const WorkloadSpec& w) {
  OutputAdapter a;
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
  if (format == OutputFormat::kFoliolab && !out.ok_marker) {
    return fmt::format("did not print {}", kWorkloadOk);
  }
  return out.violation;
}

}  // namespace foliolab
