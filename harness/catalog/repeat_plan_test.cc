#include "catalog/repeat_plan.h"

#include <gtest/gtest.h>

#include "catalog/workload_catalog.h"

namespace foliolab {
namespace {

Experiment repeat_experiment(std::vector<std::string> workloads) {
  Experiment e;
  e.name = "t";
  e.repeat = 3;
  e.kernels.push_back({.name = "k"});
  e.archs = {Arch::kX86_64};
  e.knob_sets.push_back({.name = "4K"});
  for (auto& w : workloads) e.workloads.push_back({.name = w, .label = w});
  return e;
}

foliolab::Run run_of(size_t workload) { return {"id", 0, Arch::kX86_64, 0, workload}; }

TEST(RepeatPlan, BuiltInPrimaryMetricsAreTimings) {
  EXPECT_TRUE(find_workload("fault")->metric("cpu_s")->primary);
  EXPECT_FALSE(find_workload("fault")->metric("sys_s")->primary);
  EXPECT_FALSE(find_workload("fault")->metric("wall_s")->primary);
  EXPECT_TRUE(find_workload("tlb")->metric("ns_per_access")->primary);
  for (const WorkloadInfo& w : workload_catalog()) {
    for (const WorkloadMetric& m : w.metrics) {
      if (m.primary) {
        EXPECT_EQ(m.info.kind, MetricKind::kTiming) << w.name << " " << m.name;
      }
    }
  }
}

TEST(RepeatPlan, GateTimingsFirstThenPrimaryOnesCountsNever) {
  Experiment e = repeat_experiment({"fault", "zero-page"});
  e.adaptive = AdaptiveRepeat{.max = 20, .ci = 0.02};
  e.gate_rules = {GateRule{.metric = "wall_s"}, GateRule{.metric = "faults"},
                  GateRule{.metric = "sys_s"}};
  const RepeatPlan fault = repeat_plan(e, run_of(0));
  EXPECT_EQ(fault.metrics, (std::vector<std::string>{"wall_s", "sys_s", "cpu_s"}));
  EXPECT_TRUE(fault.adaptive());
  EXPECT_EQ(fault.max, 20);
  // The gate's rules apply to zero-page too, whose wall_s and sys_s are timings.
  EXPECT_EQ(repeat_plan(e, run_of(1)).metrics, (std::vector<std::string>{"wall_s", "sys_s"}));
  e.gate_rules.clear();
  const RepeatPlan zero = repeat_plan(e, run_of(1));
  EXPECT_TRUE(zero.metrics.empty());
  EXPECT_FALSE(zero.adaptive());
  EXPECT_EQ(zero.max, 3);  // nothing to watch: the minimum
}

TEST(RepeatPlan, CustomWorkloadsWatchTheirPrimaryTimingsFromJsonOnly) {
  Experiment e = repeat_experiment({"custom"});
  e.adaptive = AdaptiveRepeat{};
  e.workloads[0].metrics = {
      {"lat_ns", MetricInfo{"ns", Better::kLower, MetricKind::kTiming, true}}};
  e.workloads[0].primary_metrics = {"lat_ns"};
  EXPECT_EQ(repeat_plan(e, run_of(0)).metrics, std::vector<std::string>{"lat_ns"});
  e.workloads[0].params = {{"output", "regex"}};  // read on the host: the agent cannot watch it
  EXPECT_TRUE(repeat_plan(e, run_of(0)).metrics.empty());
}

TEST(RepeatPlan, PlanSaysRepsAreAdaptive) {
  Experiment e = repeat_experiment({"fault", "zero-page"});
  const std::vector<foliolab::Run> runs = {run_of(0), run_of(1)};
  EXPECT_EQ(format_repeat_plan(e, runs), "");
  e.warmup = 1;
  EXPECT_EQ(format_repeat_plan(e, runs),
            "repeat: 3 reps per run after 1 warm-up rep per boot (recorded, in no statistic)\n");
  e.warmup = 0;
  e.adaptive = AdaptiveRepeat{.max = 30, .ci = 0.02};
  EXPECT_EQ(format_repeat_plan(e, runs),
            "repeat: adaptive, 3..30 reps per run until the 95 % CI half-width of the mean is "
            "within ±2 % for fault: cpu_s; zero-page watches no timing metric and does 3\n");
}

}  // namespace
}  // namespace foliolab
