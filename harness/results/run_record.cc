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

// "state.before.<key>" -> the rep's state_before map and "<key>" (nullptr for other names).
static const std::map<std::string, int64_t>* state_map(const Repetition& rep,
                                                       const std::string& metric,
                                                       std::string* key) {
  for (auto [prefix, map] : {std::pair{"state.before.", &rep.state_before},
                             std::pair{"state.after.", &rep.state_after}}) {
    if (metric.starts_with(prefix)) {
      *key = metric.substr(std::string_view(prefix).size());
      return map;
    }
  }
  return nullptr;
}

std::optional<double> rep_value(const Repetition& rep, const std::string& metric) {
  if (auto m = rep.metrics.find(metric); m != rep.metrics.end()) return m->second;
  if (auto d = rep.deltas.find(metric); d != rep.deltas.end()) {
    return static_cast<double>(d->second);
  }
  std::string key;
  if (const auto* state = state_map(rep, metric, &key)) {
    if (auto s = state->find(key); s != state->end()) return static_cast<double>(s->second);
  }
  return distribution_value(rep.distributions, metric);
}

std::vector<double> RunRecord::samples(const std::string& metric) const {
  std::vector<double> out;
  for (const Repetition& rep : reps) {
    if (rep.warmup) continue;
    if (auto v = rep_value(rep, metric)) out.push_back(*v);
  }
  return out;
}

std::vector<std::string> RunRecord::metric_names() const {
  std::set<std::string> names;
  for (const Repetition& rep : reps) {
    for (const auto& [name, _] : rep.metrics) names.insert(name);
    for (const auto& [name, _] : rep.deltas) names.insert(name);
    for (const auto& [name, _] : rep.distributions) {
      for (std::string& derived : distribution_value_names(name)) names.insert(std::move(derived));
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace foliolab
