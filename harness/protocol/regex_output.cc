#include "protocol/regex_output.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

// The capture of the last line `re` matches (each line cut at kMaxRegexLine bytes).
std::optional<std::string> last_capture(std::string_view text, const std::regex& re,
                                        const std::string& name, WorkloadOutput& out) {
  std::optional<std::string> capture;
  for (const std::string_view line : split_lines(text)) {
    const std::string bounded_line(line.substr(0, kMaxRegexLine));
    std::smatch m;
    try {
      if (std::regex_search(bounded_line, m, re) && m.size() > 1 && m[1].matched) {
        capture = m[1].str();
      }
    } catch (const std::regex_error&) {
      // regex_search may give up on a pathological line (error_complexity, error_stack)
      add_problem(out, fmt::format("metric {}: pattern could not be applied to a line", name));
    }
  }
  return capture;
}

}  // namespace

void parse_regex_output(std::string_view text, const KeyValues& patterns, WorkloadOutput& out) {
  for (const auto& [name, pattern] : patterns) {
    std::optional<std::regex> re;
    try {
      re.emplace(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      add_violation(out, fmt::format("metric {}: invalid pattern: {}", name, e.what()));
      continue;
    }
    const std::optional<std::string> capture = last_capture(text, *re, name, out);
    if (!capture) {
      add_violation(
          out, fmt::format("metric {}: pattern '{}' matched no line", name, bounded(pattern, 80)));
      continue;
    }
    // strtod, not parse_double: a capture may be "+3", "1e3" or "0x10", as it always could.
    const std::string number(trim(*capture));
    char* end = nullptr;
    const double v = number.empty() ? NAN : std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v)) {
      add_violation(
          out, fmt::format("metric {}: captured \"{}\", not a number", name, bounded(number, 80)));
      continue;
    }
    set_metric(out, name, v);
  }
}

}  // namespace foliolab
