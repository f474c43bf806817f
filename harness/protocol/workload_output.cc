#include "protocol/workload_output.h"

#include <fmt/format.h>

#include <cmath>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

constexpr size_t kMaxMetrics = 1024;
constexpr size_t kMaxOutputProblems = 100;

}  // namespace

void add_problem(WorkloadOutput& out, std::string what) {
  if (out.problems.size() < kMaxOutputProblems) out.problems.push_back(std::move(what));
}

void add_violation(WorkloadOutput& out, std::string what) {
  if (out.violation.empty()) out.violation = std::move(what);
}

bool read_fail_marker(std::string_view line, WorkloadOutput& out) {
  if (!line.starts_with(kWorkloadFail)) return false;
  if (line.size() != kWorkloadFail.size() && line[kWorkloadFail.size()] != ' ') return false;
  out.fail_marker = true;
  if (out.fail_reason.empty()) {
    out.fail_reason = bounded(trim(line.substr(kWorkloadFail.size())), 1024);
  }
  return true;
}

void set_metric(WorkloadOutput& out, std::string_view name, double value) {
  if (!std::isfinite(value)) {
    add_problem(out, fmt::format("metric {} is not finite", bounded(name, 128)));
    return;
  }
  if (!out.metrics.contains(std::string(name)) && out.metrics.size() >= kMaxMetrics) {
    add_problem(out, "too many metrics, rest ignored");
    return;
  }
  out.metrics[bounded(name, kMaxOutputName)] = value;
}

void set_tap_counts(WorkloadOutput& out, size_t pass, size_t fail, size_t skip) {
  out.metrics["tap.pass"] = static_cast<double>(pass);
  out.metrics["tap.fail"] = static_cast<double>(fail);
  out.metrics["tap.skip"] = static_cast<double>(skip);
}

}  // namespace foliolab
