#include "protocol/tap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

// True when the directive starts with `word` (uppercase; matched case-insensitively) followed
// by its end, a space or a ':'.
bool directive_is(std::string_view directive, std::string_view word) {
  if (directive.size() < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(directive[i])) != word[i]) return false;
  }
  return directive.size() == word.size() || directive[word.size()] == ' ' ||
         directive[word.size()] == ':';
}

// The description after "ok"/"not ok": its number (if any), name and directive.
void read_description(std::string_view line, SubtestOutcome& t) {
  size_t digits = 0;
  while (digits < line.size() && digits < 9 && line[digits] >= '0' && line[digits] <= '9') {
    ++digits;
  }
  if (digits > 0 && (digits == line.size() || line[digits] == ' ')) {
    t.number = static_cast<int>(parse_uint(line.substr(0, digits)).value_or(0));  // <= 9 digits
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
  t.name = bounded(line, kMaxOutputName);
  if (directive_is(directive, "SKIP")) {
    t.status = "skip";
    t.reason = bounded(trim(directive.substr(4)), kMaxOutputName);
  } else if (directive_is(directive, "TODO")) {
    t.status = "skip";  // a TODO test's result does not count (TAP): kept, as a skip
    t.reason = bounded(directive, kMaxOutputName);
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
  SubtestOutcome t;
  t.number = static_cast<int>(out.tests.size()) + 1;
  t.status = pass ? "pass" : "fail";
  read_description(trim(line), t);
  if (out.tests.size() < kMaxTests) {
    out.tests.push_back(std::move(t));
  } else if (out.tests.size() == kMaxTests) {
    add_problem(out, fmt::format("more than {} tests; the rest are not kept", kMaxTests));
  }
  return true;
}

// A "1..N" line: the plan, unless it is the second or has no number.
void read_plan(std::string_view line, std::optional<int64_t>& planned, WorkloadOutput& out) {
  const std::string_view rest = line.substr(3);
  const size_t end = rest.find_first_not_of("0123456789");
  const std::string_view digits = rest.substr(0, std::min<size_t>(end, 12));
  const auto n = static_cast<int64_t>(parse_uint(digits).value_or(0));
  if (planned) {
    add_violation(out, "two TAP plans");
  } else if (end == 0) {
    add_violation(out, fmt::format("bad TAP plan \"{}\"", bounded(line, 80)));
  } else {
    planned = n;
  }
}

}  // namespace

void parse_tap(std::string_view text, WorkloadOutput& out) {
  std::optional<int64_t> planned;
  bool in_yaml = false;
  size_t counted[3] = {0, 0, 0};  // pass, fail, skip over every test line, kept or not
  for (const std::string_view line : split_lines(text)) {
    // YAML diagnostics ("  ---" ... "  ...") and subtests (indented) belong to their parent.
    if (in_yaml) {
      in_yaml = trim(line) != "...";
      continue;
    }
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      in_yaml = trim(line) == "---";
      continue;
    }
    if (line.starts_with("Bail out!")) {
      out.bailed_out = true;
      out.bail_reason = bounded(trim(line.substr(9)), 1024);
      break;  // nothing after a bail-out counts
    }
    if (read_fail_marker(line, out)) continue;
    if (line.starts_with("1..")) {
      read_plan(line, planned, out);
      continue;
    }
    const size_t before = out.tests.size();
    if (!tap_test_line(line, out)) continue;
    if (out.tests.size() > before) {
      const std::string& s = out.tests.back().status;
      ++counted[s == "pass" ? 0 : s == "fail" ? 1 : 2];
    } else {
      ++counted[1];  // beyond kMaxTests: counted as ran, status unknown, counted as failed
    }
  }
  const size_t ran = counted[0] + counted[1] + counted[2];
  set_tap_counts(out, counted[0], counted[1], counted[2]);
  if (out.bailed_out) return;
  if (!planned) {
    add_violation(out, fmt::format("no TAP plan (1..N) in the output ({} test lines)", ran));
  } else if (static_cast<size_t>(*planned) != ran) {
    add_violation(out, fmt::format("TAP plan 1..{} but {} tests ran", *planned, ran));
  }
}

}  // namespace foliolab
