#include "catalog/repeat_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "catalog/metric_catalog.h"
#include "catalog/workload_catalog.h"
#include "util/text.h"

namespace foliolab {
namespace {

// The agent reads watched metrics from the JSON line: built-in workloads print one, a custom
// program only with `output: foliolab` (the default).
bool prints_json(const WorkloadSpec& w) {
  if (w.name != "custom") return true;
  for (const auto& [key, value] : w.params) {
    if (key == "output") return value == "foliolab";
  }
  return true;
}

std::vector<std::string> watched(const Experiment& exp, const Run& run) {
  const WorkloadSpec& w = exp.workloads[run.workload];
  std::vector<std::string> out;
  if (!prints_json(w)) return out;
  auto add = [&](const std::string& m) {
    if (metric_info(m, w.metrics).kind != MetricKind::kTiming) return;
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  for (const GateRule& g : exp.gate_rules) {
    if (selector_matches(g.runs, exp, run)) add(g.metric);
  }
  if (const WorkloadInfo* info = find_workload(w.name)) {
    for (const WorkloadMetric& m : info->metrics) {
      if (m.primary) add(m.name);
    }
  }
  for (const std::string& m : w.primary_metrics) add(m);
  return out;
}

std::string percent(double fraction) { return fmt::format("{:g} %", fraction * 100); }

}  // namespace

RepeatPlan repeat_plan(const Experiment& exp, const Run& run) {
  RepeatPlan p{.min = exp.repeat, .max = exp.repeat, .warmup = exp.warmup};
  p.metrics = watched(exp, run);
  if (exp.adaptive) {
    p.ci = exp.adaptive->ci;
    if (!p.metrics.empty()) p.max = exp.adaptive->max;
  }
  return p;
}

std::string format_repeat_plan(const Experiment& exp, const std::vector<Run>& runs) {
  const std::string warm =
      exp.warmup ? fmt::format(" after {} warm-up rep{} per boot (recorded, in no statistic)",
                               exp.warmup, exp.warmup == 1 ? "" : "s")
                 : "";
  if (!exp.adaptive) {
    return warm.empty() ? "" : fmt::format("repeat: {} reps per run{}\n", exp.repeat, warm);
  }
  std::map<std::string, std::vector<std::string>> by_label;  // workload label -> watched
  for (const Run& run : runs) {
    by_label.emplace(exp.workloads[run.workload].label, repeat_plan(exp, run).metrics);
  }
  std::vector<std::string> watching, idle;
  for (const auto& [label, metrics] : by_label) {
    if (metrics.empty()) {
      idle.push_back(label);
    } else {
      watching.push_back(label + ": " + join(metrics, ", "));
    }
  }
  std::string out = fmt::format(
      "repeat: adaptive, {}..{} reps per run{} until the 95 % CI half-width of the mean is "
      "within ±{}",
      exp.repeat, exp.adaptive->max, warm, percent(exp.adaptive->ci));
  if (!watching.empty()) out += " for " + join(watching, "; ");
  if (!idle.empty()) {
    out += fmt::format("; {} watch{} no timing metric and do{} {}", join(idle, ", "),
                       idle.size() == 1 ? "es" : "", idle.size() == 1 ? "es" : "", exp.repeat);
  }
  return out + "\n";
}

}  // namespace foliolab
