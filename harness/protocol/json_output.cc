#include "protocol/json_output.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

using nlohmann::json;

constexpr size_t kMaxJsonDepth = 32;

// A JSON object line's numeric fields; false if the line is not a JSON object.
bool json_metrics(std::string_view line, WorkloadOutput& out) {
  if (line.empty() || line.front() != '{') return false;
  if (json_depth(line) > kMaxJsonDepth) {
    add_problem(out, "JSON line nested too deeply, ignored");
    return false;
  }
  const json obj = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded() || !obj.is_object()) return false;
  for (const auto& [key, value] : obj.items()) {
    if (value.is_number()) set_metric(out, key, value.get<double>());
  }
  return true;
}

}  // namespace

void parse_json_output(std::string_view text, WorkloadOutput& out) {
  size_t metric_lines = 0, markers = 0;
  for (const std::string_view raw : split_lines(text)) {
    const std::string_view line = trim(raw);
    if (line == kWorkloadOk) {
      ++markers;
      continue;
    }
    if (read_fail_marker(line, out)) continue;
    if (markers > 0 && !line.empty()) {
      add_violation(out, fmt::format("output after {}: \"{}\"", kWorkloadOk, bounded(line, 80)));
      continue;
    }
    if (json_metrics(line, out)) ++metric_lines;
  }
  out.ok_marker = markers > 0;
  if (markers > 1) add_violation(out, fmt::format("{} printed {} times", kWorkloadOk, markers));
  if (metric_lines > 1) {
    add_violation(out, fmt::format("{} metric lines; exactly one is allowed", metric_lines));
  }
  if (markers > 0 && metric_lines == 0) {
    add_violation(out, fmt::format("no metrics line before {}", kWorkloadOk));
  }
}

}  // namespace foliolab
