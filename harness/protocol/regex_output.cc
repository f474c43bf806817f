#include "protocol/regex_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>
#include <vector>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

// The captures of the lines `re` matches, in order (each line cut at kMaxRegexLine bytes).
std::vector<std::string> captures(std::string_view text, const std::regex& re,
                                  const std::string& name, WorkloadOutput& out) {
  std::vector<std::string> found;
  for (const std::string_view line : split_lines(text)) {
    const std::string bounded_line(line.substr(0, kMaxRegexLine));
    std::smatch m;
    try {
      if (std::regex_search(bounded_line, m, re) && m.size() > 1 && m[1].matched) {
        found.push_back(m[1].str());
      }
    } catch (const std::regex_error&) {
      // regex_search may give up on a pathological line (error_complexity, error_stack)
      add_problem(out, fmt::format("metric {}: pattern could not be applied to a line", name));
    }
  }
  return found;
}

// strtod, not parse_double: a capture may be "+3", "1e3" or "0x10", as it always could.
std::optional<double> capture_number(const std::string& capture) {
  const std::string text(trim(capture));
  char* end = nullptr;
  const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string aggregate_of(const KeyValues& aggregates, const std::string& name) {
  for (const auto& [k, v] : aggregates) {
    if (k == name) return v;
  }
  return "last";
}

// The captures combined by `how`; nullopt (with a violation) when one is not a number.
std::optional<double> combine(const std::vector<std::string>& found, const std::string& how,
                              const std::string& name, WorkloadOutput& out) {
  if (how == "count") return static_cast<double>(found.size());
  std::vector<std::string> used = found;
  if (how == "first") used.resize(1);
  if (how == "last") used.erase(used.begin(), used.end() - 1);
  std::vector<double> values;
  for (const std::string& c : used) {
    const std::optional<double> v = capture_number(c);
    if (!v) {
      add_violation(
          out, fmt::format("metric {}: captured \"{}\", not a number", name, bounded(trim(c), 80)));
      return std::nullopt;
    }
    values.push_back(*v);
  }
  if (how == "min") return *std::min_element(values.begin(), values.end());
  if (how == "max") return *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  return sum;  // sum, and first / last (one value)
}

// Every capture a value of the distribution `name` (all of them numbers, else a violation).
void collect_distribution(const std::vector<std::string>& found, const std::string& name,
                          WorkloadOutput& out) {
  DistributionBuilder builder;
  for (const std::string& c : found) {
    const std::optional<double> v = capture_number(c);
    if (!v) {
      add_violation(
          out, fmt::format("metric {}: captured \"{}\", not a number", name, bounded(trim(c), 80)));
      return;
    }
    builder.add(*v);
  }
  out.distributions.insert_or_assign(name, builder.take());
}

}  // namespace

void parse_regex_output(std::string_view text, const KeyValues& patterns,
                        const KeyValues& aggregates, WorkloadOutput& out) {
  for (const auto& [name, pattern] : patterns) {
    std::optional<std::regex> re;
    try {
      re.emplace(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      add_violation(out, fmt::format("metric {}: invalid pattern: {}", name, e.what()));
      continue;
    }
    const std::vector<std::string> found = captures(text, *re, name, out);
    const std::string how = aggregate_of(aggregates, name);
    if (found.empty() && how != "count") {
      add_violation(
          out, fmt::format("metric {}: pattern '{}' matched no line", name, bounded(pattern, 80)));
      continue;
    }
    if (how == "distribution") {
      collect_distribution(found, name, out);
    } else if (const std::optional<double> v = combine(found, how, name, out)) {
      set_metric(out, name, *v);
    }
  }
}

}  // namespace foliolab
