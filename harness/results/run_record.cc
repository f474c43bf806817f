#include "results/run_record.h"

#include <set>

namespace foliolab {

namespace {
constexpr std::string_view kClassNames[] = {"", "guest", "workload", "host", "harness"};
}  // namespace

std::string_view failure_class_name(FailureClass c) { return kClassNames[static_cast<size_t>(c)]; }

FailureClass parse_failure_class(std::string_view name) {
  for (size_t i = 0; i < std::size(kClassNames); ++i) {
    if (kClassNames[i] == name) return static_cast<FailureClass>(i);
  }
  return FailureClass::kHarness;
}

std::vector<double> RunRecord::samples(const std::string& metric) const {
  std::vector<double> out;
  for (const Repetition& rep : reps) {
    if (rep.warmup) continue;
    if (auto m = rep.metrics.find(metric); m != rep.metrics.end()) {
      out.push_back(m->second);
    } else if (auto d = rep.deltas.find(metric); d != rep.deltas.end()) {
      out.push_back(static_cast<double>(d->second));
    }
  }
  return out;
}

std::vector<std::string> RunRecord::metric_names() const {
  std::set<std::string> names;
  for (const Repetition& rep : reps) {
    for (const auto& [name, _] : rep.metrics) names.insert(name);
    for (const auto& [name, _] : rep.deltas) names.insert(name);
  }
  return {names.begin(), names.end()};
}

}  // namespace foliolab
