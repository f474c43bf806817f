#include "catalog/workload_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

// `workloads` and `rest` are YAML lines appended to a one-kernel, one-arch experiment.
std::string workloads_error(const std::string& workloads, const std::string& rest = "") {
  const std::string text =
      "name: w\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {a: {}}\n" + workloads + rest;
  auto exp = parse_experiment(text, "x.yaml");
  if (!exp.ok()) return "parse: " + exp.error().message;
  Result<void> st = validate_workloads(*exp);
  return st.ok() ? "ok" : st.error().message;
}

TEST(WorkloadCheck, UnknownWorkloadName) {
  EXPECT_EQ(workloads_error("workloads: [{name: faults}]\n"),
            "x.yaml:5:20: workloads[0].name: unknown workload 'faults'; did you mean 'fault'?");
  EXPECT_THAT(workloads_error("workloads: [{name: stream}]\n"),
              HasSubstr("(workloads: fault, zero-page, thp-util, numa-thp, tlb, kselftest-mm, "
                        "thp-swap-allocator, swap, collapse, redis, memcg-stress, postgres, "
                        "memcached, kbuild, custom)"));
}

TEST(WorkloadCheck, UnknownParameterName) {
  EXPECT_EQ(workloads_error("workloads: [{name: fault, params: {sise: 64M}}]\n"),
            "x.yaml:5:36: workloads[0].params.sise: unknown parameter 'sise' of workload "
            "'fault'; did you mean 'size'?");
}

TEST(WorkloadCheck, BadSize) {
  EXPECT_EQ(workloads_error("workloads: [{name: fault, params: {size: 64X}}]\n"),
            "x.yaml:5:42: workloads[0].params.size: invalid size '64X': expected bytes with an "
            "optional K, M or G suffix (e.g. 64M)");
}

TEST(WorkloadCheck, BadEnumValue) {
  EXPECT_EQ(workloads_error("workloads:\n  - name: fault\n    params: {mapping: anonymous}\n"),
            "x.yaml:7:23: workloads[0].params.mapping: unknown value 'anonymous' (valid: anon | "
            "anon-shared | tmpfs | memfd | sysv-shm)");
}

TEST(WorkloadCheck, IntOutOfRange) {
  EXPECT_EQ(workloads_error("workloads: [{name: fault, params: {threads: 100000000}}]\n"),
            "x.yaml:5:45: workloads[0].params.threads: 100000000 out of range (1..1024)");
}

TEST(WorkloadCheck, KselftestNames) {
  EXPECT_EQ(
      workloads_error(
          "workloads: [{name: kselftest-mm, params: {tests: cow khugepaged, timeout: 60}}]\n"),
      "ok");
  EXPECT_EQ(
      workloads_error("workloads: [{name: kselftest-mm, params: {tests: 'cow,khugepage'}}]\n"),
      "x.yaml:5:50: workloads[0].params.tests: unknown mm selftest 'khugepage'; did you mean "
      "'khugepaged'?");
  EXPECT_THAT(
      workloads_error("workloads: [{name: kselftest-mm, params: {tests: hmm-tests}}]\n"),
      HasSubstr(
          "(known: split_huge_page_test, khugepaged, cow, transhuge-stress, uffd-wp-mremap)"));
  EXPECT_EQ(workloads_error("workloads: [{name: kselftest-mm, params: {timeout: 30}}]\n",
                            "expect: [{metric: tap.fail, \"==\": 0}]\n"),
            "ok");
  // Four programs at the default 900 s each, 3 reps (the default) do not fit in the default
  // 600 s run timeout.
  EXPECT_EQ(workloads_error("workloads: [{name: kselftest-mm}]\n"),
            "x.yaml:5:13: timeout: run timeout 600 s is shorter than workloads[0]'s 4 program(s) × "
            "900 s × 3 "
            "rep(s) + 120 s to boot = 10920 s; a hung selftest would end the whole run");
}

// thp-swap-allocator's program deadline must fit in the run's too; its parameters are checked.
TEST(WorkloadCheck, SwapAllocatorTimeoutAndParams) {
  EXPECT_EQ(workloads_error("workloads: [{name: thp-swap-allocator, params: {timeout: 100}}]\n"),
            "ok");
  EXPECT_THAT(
      workloads_error("workloads: [{name: thp-swap-allocator}]\n"),
      HasSubstr("workloads[0]'s 1 program(s) × 1800 s × 3 rep(s) + 120 s to boot = 5520 s"));
  EXPECT_THAT(
      workloads_error("workloads: [{name: thp-swap-allocator, params: {small_folio: maybe}}]\n"),
      HasSubstr("workloads[0].params.small_folio"));
  EXPECT_THAT(workloads_error("workloads: [{name: swap, params: {fill: zeros}}]\n"),
              HasSubstr("unknown value 'zeros' (valid: random | compressible | same)"));
  EXPECT_THAT(workloads_error("workloads: [{name: collapse, params: {mode: khugepage}}]\n"),
              HasSubstr("did you mean 'khugepaged'?"));
}

TEST(WorkloadCheck, AllProblemsAtOnce) {
  const std::string out = workloads_error(
      "workloads: [{name: fault, params: {sise: 64M, threads: 0, touch: wirte}}]\n");
  EXPECT_THAT(out, HasSubstr("params.sise"));
  EXPECT_THAT(out, HasSubstr("params.threads: 0 out of range"));
  EXPECT_THAT(out, HasSubstr("did you mean 'write'?"));
}

TEST(WorkloadCheck, ExpectationMetric) {
  EXPECT_EQ(workloads_error("workloads: [{name: fault}]\n", "expect: [{metric: faultz, '>': 0}]\n"),
            "x.yaml:6:19: expect[0].metric: no workload of these runs prints 'faultz'; did you "
            "mean 'faults'?");
}

TEST(WorkloadCheck, GateMetricOfTheSelectedWorkload) {
  // tlb prints ns_per_access, fault does not.
  EXPECT_THAT(
      workloads_error("workloads: [{name: fault}, {name: tlb}]\n",
                      "gate: [{metric: ns_per_access, runs: {workload: fault}, equal: true}]\n"),
      HasSubstr("gate[0].metric: no workload of these runs prints 'ns_per_access'"));
  EXPECT_EQ(
      workloads_error("workloads: [{name: fault}, {name: tlb}]\n",
                      "gate: [{metric: ns_per_access, runs: {workload: tlb}, equal: true}]\n"),
      "ok");
}

// `thresholds:` names counts the runs can have, or prefixes of some; never a timing.
TEST(WorkloadCheck, ThresholdMetrics) {
  const std::string w = "workloads: [{name: fault}]\n";
  EXPECT_EQ(
      workloads_error(w, "thresholds: {fallback.thp: 4, faults: 1%, vmstat.thp_fault_*: 2}\n"),
      "ok");
  EXPECT_EQ(workloads_error(w, "thresholds: {mthp.*: 10%, fallback.anon.*: {abs: 8, rel: 5%}}\n"),
            "ok");
  EXPECT_EQ(workloads_error(w, "thresholds: {faultz: 1}\n"),
            "x.yaml:6:14: thresholds.faultz: no workload of these runs prints 'faultz'; did you "
            "mean 'faults'?");
  EXPECT_EQ(workloads_error(w, "thresholds: {sys_s: 1}\n"),
            "x.yaml:6:14: thresholds.sys_s: 'sys_s' is a timing: thresholds are for counts "
            "(timings are judged by their confidence interval and `compare --min-effect`)");
  EXPECT_EQ(workloads_error(w, "thresholds: {frag*: 1}\n"),
            "x.yaml:6:14: thresholds[\"frag*\"]: no metric of these runs starts with 'frag'");
  EXPECT_THAT(workloads_error(w, "thresholds: {vmstat.thp_fault_falback: 1}\n"),
              HasSubstr("did you mean 'vmstat.thp_fault_fallback'?"));
}

TEST(WorkloadCheck, CounterNames) {
  const std::string w = "workloads: [{name: fault}]\n";
  EXPECT_EQ(workloads_error(w, "expect: [{metric: vmstat.thp_fault_alloc, '>': 0}]\n"), "ok");
  EXPECT_EQ(workloads_error(w, "expect: [{metric: vmstat.mthp_anon_fault_alloc, '>': 0}]\n"), "ok");
  EXPECT_THAT(workloads_error(w, "expect: [{metric: vmstat.thp_fault_aloc, '>': 0}]\n"),
              HasSubstr("did you mean 'vmstat.thp_fault_alloc'?"));
  EXPECT_EQ(workloads_error(w, "expect: [{metric: mthp.64kB.anon_fault_alloc, '>': 0}]\n"), "ok");
  EXPECT_THAT(workloads_error(w, "expect: [{metric: mthp.64K.anon_fault_alloc, '>': 0}]\n"),
              HasSubstr("expected mthp.<size>kB.<stat>"));
  EXPECT_THAT(workloads_error(w, "expect: [{metric: mthp.64kB.anon_fault_aloc, '>': 0}]\n"),
              HasSubstr("did you mean 'anon_fault_alloc'?"));
  EXPECT_THAT(workloads_error(w, "expect: [{metric: meminfo.AnonHugePage, '>': 0}]\n"),
              HasSubstr("did you mean 'AnonHugePages'?"));
  EXPECT_THAT(workloads_error(w, "expect: [{metric: vmstats.pgfault, '>': 0}]\n"),
              HasSubstr("unknown counter prefix 'vmstats.'; did you mean 'vmstat'?"));
  EXPECT_THAT(workloads_error(w, "expect: [{metric: tap.fail, '==': 0}]\n"),
              HasSubstr("needs a custom workload with output: tap"));
}

TEST(WorkloadCheck, CustomOutputs) {
  EXPECT_EQ(workloads_error("workloads: [{name: custom, params: {source: p.c, output: tap}}]\n",
                            "expect: [{metric: tap.fail, '==': 0}]\n"),
            "ok");
  EXPECT_THAT(workloads_error("workloads: [{name: custom, params: {source: p.c, output: tapp}}]\n"),
              HasSubstr("did you mean 'tap'?"));
  EXPECT_EQ(workloads_error(
                "workloads:\n  - name: custom\n    params: {source: p.c, output: regex}\n"
                "    metrics: {ops: 'total:(\\d+)', tps: {pattern: 'tps = ([0-9.]+)', better: "
                "higher}}\n",
                "expect: [{metric: ops, '>': 0}, {metric: tps, '>': 0}]\n"),
            "ok");
  EXPECT_THAT(
      workloads_error("workloads:\n  - name: custom\n    params: {source: p.c, output: regex}\n"
                      "    metrics: {ops: 'total:\\d+'}\n"),
      HasSubstr("workloads[0].metrics.ops: pattern 'total:\\d+' has 0 capture groups"));
  EXPECT_THAT(
      workloads_error("workloads:\n  - name: custom\n    params: {source: p.c, output: regex}\n"
                      "    metrics: {ops: 'total:(\\d+'}\n"),
      HasSubstr("invalid regular expression"));
  EXPECT_THAT(
      workloads_error("workloads: [{name: custom, params: {source: p.c, output: regex}}]\n"),
      HasSubstr("output: regex needs metrics:"));
  EXPECT_THAT(workloads_error("workloads: [{name: custom, params: {args: -n}}]\n"),
              HasSubstr("exactly one of params.source"));
  // A foliolab-speaking program without declarations may print anything.
  EXPECT_EQ(workloads_error("workloads: [{name: custom, params: {source: p.c}}]\n",
                            "expect: [{metric: whatever, '>': 0}]\n"),
            "ok");
}

TEST(WorkloadCheck, BuiltinsTakeNoMetricDeclarations) {
  EXPECT_THAT(workloads_error("workloads: [{name: fault, metrics: {faults: {unit: x}}}]\n"),
              HasSubstr("declares its own metrics"));
}

}  // namespace
}  // namespace foliolab
