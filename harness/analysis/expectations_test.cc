#include "analysis/expectations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/session_report.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "report/render.h"
#include "report/session_layout.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kBase = R"(name: e
kernels: [{name: "6.12-mthp-vmstat"}]
archs: [x86_64, arm64]
knobs: {never: {hugepages-64kB/enabled: never}, "64K": {hugepages-64kB/enabled: always}}
workloads: [{name: fault}]
)";

Experiment load_expect(const std::string& expect_block) {
  auto exp = parse_experiment(std::string(kBase) + expect_block, "e.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

// Per-rep values of one run; a NaN leaves the metric out of that rep.
struct Reps {
  std::vector<double> faults;
  std::vector<int64_t> mthp64;  // delta of mthp.64kB.anon_fault_alloc
};

// A run record as the runner stores it, for the run of `exp` with these names.
RunRecord record(const Experiment& exp, const std::string& arch, const std::string& knobs,
                 const Reps& reps, const std::string& status = "ok",
                 const std::string& reason = "") {
  RunRecord r;
  for (const Run& run : expand(exp)) {
    if (arch_info(run.arch).name == arch && exp.knob_sets[run.knob_set].name == knobs) {
      r.id.run_id = run.id;
    }
  }
  r.id.experiment = exp.name;
  r.id.arch = arch;
  r.id.kernel.name = "6.12-mthp-vmstat";
  r.id.knob_set.name = knobs;
  r.id.workload = {"fault", "fault", {}};
  r.status = status;
  r.failure = status == "ok" ? FailureClass::kNone : FailureClass::kGuest;
  r.reason = reason;
  r.provenance.accel = "tcg";
  r.provenance.timings_emulated = true;
  for (size_t i = 0; i < std::max(reps.faults.size(), reps.mthp64.size()); ++i) {
    Repetition rep;
    rep.rep = static_cast<int>(i);
    if (i < reps.faults.size() && !std::isnan(reps.faults[i])) {
      rep.metrics["faults"] = reps.faults[i];
    }
    if (i < reps.mthp64.size()) rep.deltas["mthp.64kB.anon_fault_alloc"] = reps.mthp64[i];
    r.reps.push_back(rep);
  }
  return r;
}

// The quickstart's numbers: 64 MiB touched in 4 KiB or 64 KiB faults.
std::vector<RunRecord> quickstart_records(const Experiment& exp) {
  return {record(exp, "x86_64", "never", {{16400, 16390, 16410}, {0, 0, 0}}),
          record(exp, "x86_64", "64K", {{1025, 1025, 1025}, {1024, 1024, 1024}}),
          record(exp, "arm64", "never", {{16400, 16400, 16400}, {0, 0, 0}}),
          record(exp, "arm64", "64K", {{1030, 1030, 1030}, {1024, 1024, 1024}})};
}

constexpr const char* kRatio = R"(expect:
  - runs: {knobs: "64K"}
    metric: faults
    ratio_to: {knobs: never}
    "<=": 0.1
)";

TEST(ExpectationsTest, RatioHeldOnEveryArch) {
  const Experiment exp = load_expect(kRatio);
  const auto results =
      evaluate_expectations(exp, {
                                     record(exp, "x86_64", "never", {{16384, 16384}}),
                                     record(exp, "x86_64", "64K", {{1024, 1024}}),
                                     record(exp, "arm64", "never", {{16000, 16000}}),
                                     record(exp, "arm64", "64K", {{1000, 1000}}),
                                 });
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].held);
  EXPECT_EQ(results[0].name, "faults / knobs=never <= 0.1 (knobs=64K)");
  EXPECT_THAT(
      expectation_details(results[0]),
      ElementsAre("[x86_64 · 6.12-mthp-vmstat · 64K · fault] faults / never = 0.0625 <= 0.1",
                  "[arm64 · 6.12-mthp-vmstat · 64K · fault] faults / never = 0.0625 <= "
                  "0.1"));
}

TEST(ExpectationsTest, NotHeldWhenOneRunFailsTheComparison) {
  const Experiment exp = load_expect(kRatio);
  const auto results =
      evaluate_expectations(exp, {
                                     record(exp, "x86_64", "never", {{16384, 16384}}),
                                     record(exp, "x86_64", "64K", {{1024, 1024}}),
                                     record(exp, "arm64", "never", {{16000, 16000}}),
                                     record(exp, "arm64", "64K", {{2000, 2000}}),
                                 });
  EXPECT_FALSE(results[0].held);
  EXPECT_EQ(expectation_details(results[0])[1],
            "[arm64 · 6.12-mthp-vmstat · 64K · fault] faults / never = 0.125, not <= 0.1");
}

TEST(ExpectationsTest, CounterDeltasAndEquality) {
  const Experiment exp = load_expect(R"(expect:
  - runs: {knobs: "64K"}
    metric: mthp.64kB.anon_fault_alloc
    ">": 0
  - name: "4K allocates no 64K folios"
    runs: {knobs: never}
    metric: mthp.64kB.anon_fault_alloc
    "==": 0
)");
  const auto results = evaluate_expectations(exp, quickstart_records(exp));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].held);
  EXPECT_TRUE(results[1].held);
  EXPECT_EQ(results[1].name, "4K allocates no 64K folios");
  EXPECT_THAT(expectation_details(results[0])[0],
              HasSubstr("mthp.64kB.anon_fault_alloc = 1024 > 0"));
  EXPECT_THAT(expectation_details(results[1])[1],
              HasSubstr("[arm64 · 6.12-mthp-vmstat · never · fault] mthp.64kB.anon_fault_alloc "
                        "= 0 == 0"));
}

TEST(ExpectationsTest, FailedRunIsNotHeld) {
  const Experiment exp = load_expect(kRatio);
  auto records = quickstart_records(exp);
  records[1] = record(exp, "x86_64", "64K", {}, "timeout", "no output for 300 s");
  records[2] = record(exp, "arm64", "never", {}, "failed", "workload exited 1");
  const auto results = evaluate_expectations(exp, records);
  EXPECT_FALSE(results[0].held);
  EXPECT_THAT(expectation_details(results[0]),
              ElementsAre("[x86_64 · 6.12-mthp-vmstat · 64K · fault] run failed: timeout: no "
                          "output for 300 s",
                          "[arm64 · 6.12-mthp-vmstat · 64K · fault] faults / never: reference "
                          "[arm64 · 6.12-mthp-vmstat · never · fault] run failed: failed: "
                          "workload exited 1"));
}

TEST(ExpectationsTest, MissingMetricOrRunIsNotHeld) {
  const Experiment exp = load_expect(R"(expect:
  - runs: {knobs: "64K"}
    metric: faults
    ">": 0
  - runs: {knobs: "64K"}
    metric: vmstat.no_such_counter
    ">=": 0
)");
  const double none = std::nan("");
  const auto results = evaluate_expectations(exp, {record(exp, "x86_64", "64K", {{1024, none}})});
  EXPECT_FALSE(results[0].held);
  EXPECT_THAT(expectation_details(results[0]),
              ElementsAre("[x86_64 · 6.12-mthp-vmstat · 64K · fault] metric 'faults' missing in "
                          "rep 1",
                          "[arm64 · 6.12-mthp-vmstat · 64K · fault] no result (the run has not "
                          "been run in this session)"));
  EXPECT_FALSE(results[1].held);
  EXPECT_THAT(expectation_details(results[1])[0],
              HasSubstr("metric 'vmstat.no_such_counter' missing in rep 0"));
}

TEST(ExpectationsTest, ZeroReferenceIsNotHeld) {
  const Experiment exp = load_expect(R"(expect:
  - runs: {knobs: "64K", arch: x86_64}
    metric: mthp.64kB.anon_fault_alloc
    ratio_to: {knobs: never}
    ">": 1
)");
  const auto results = evaluate_expectations(exp, quickstart_records(exp));
  EXPECT_FALSE(results[0].held);
  EXPECT_THAT(expectation_details(results[0]),
              ElementsAre(HasSubstr("reference [x86_64 · 6.12-mthp-vmstat · never · fault] has "
                                    "mthp.64kB.anon_fault_alloc = 0")));
}

TEST(ExpectationsTest, RatioAcrossArches) {
  const Experiment exp = load_expect(R"(expect:
  - runs: {arch: arm64}
    metric: faults
    ratio_to: {arch: x86_64}
    approx: 1
    tolerance: 0.01
)");
  const auto results = evaluate_expectations(exp, quickstart_records(exp));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].name, "faults / arch=x86_64 approx 1 ±1% (arch=arm64)");
  // Each arm64 run is paired with the x86_64 run of its own knob set.
  EXPECT_THAT(expectation_details(results[0]),
              ElementsAre("[arm64 · 6.12-mthp-vmstat · never · fault] faults / x86_64 = 1 "
                          "approx 1 ±1%",
                          "[arm64 · 6.12-mthp-vmstat · 64K · fault] faults / x86_64 = 1.005 "
                          "approx 1 ±1%"));
  EXPECT_TRUE(results[0].held);
}

TEST(ExpectationsTest, ApproxTolerance) {
  const std::string block = R"(expect:
  - runs: {knobs: "64K", arch: x86_64}
    metric: faults
    approx: 1000
    tolerance: 0.1
)";
  const Experiment exp = load_expect(block);
  auto held = evaluate_expectations(exp, {record(exp, "x86_64", "64K", {{1090, 1110}})});
  EXPECT_TRUE(held[0].held) << expectation_details(held[0])[0];
  EXPECT_EQ(expectation_details(held[0])[0],
            "[x86_64 · 6.12-mthp-vmstat · 64K · fault] faults = 1100 approx 1000 ±10%");
  auto missed = evaluate_expectations(exp, {record(exp, "x86_64", "64K", {{1101, 1101}})});
  EXPECT_FALSE(missed[0].held);
  EXPECT_EQ(expectation_details(missed[0])[0],
            "[x86_64 · 6.12-mthp-vmstat · 64K · fault] faults = 1101, not approx 1000 ±10%");
}

TEST(ExpectationsTest, Statistics) {
  const Experiment exp = load_expect(R"(expect:
  - {runs: {knobs: "64K", arch: x86_64}, metric: faults, stat: min, "==": 1}
  - {runs: {knobs: "64K", arch: x86_64}, metric: faults, stat: max, "==": 9}
  - {runs: {knobs: "64K", arch: x86_64}, metric: faults, stat: median, "==": 2}
  - {runs: {knobs: "64K", arch: x86_64}, metric: faults, "==": 4}
)");
  const auto results = evaluate_expectations(exp, {record(exp, "x86_64", "64K", {{9, 1, 2}})});
  for (const auto& r : results) EXPECT_TRUE(r.held) << r.name << ": " << expectation_details(r)[0];
  EXPECT_EQ(expectation_details(results[2])[0],
            "[x86_64 · 6.12-mthp-vmstat · 64K · fault] median faults = 2 == 2");
}

TEST(ExpectationsTest, SelectingNothingIsNotHeld) {
  const Experiment exp = load_expect(R"(exclude: [{knobs: "64K"}]
expect:
  - {runs: {knobs: "64K"}, metric: faults, ">": 0}
  - {runs: {knobs: never}, metric: faults, ratio_to: {knobs: "64K"}, ">": 0}
)");
  const auto results = evaluate_expectations(exp, quickstart_records(exp));
  EXPECT_FALSE(results[0].held);
  EXPECT_THAT(expectation_details(results[0]), ElementsAre("selects no runs (knobs=64K)"));
  // The partner is excluded from the plan.
  EXPECT_FALSE(results[1].held);
  EXPECT_THAT(expectation_details(results[1])[0],
              HasSubstr("faults / 64K: no run with knobs=64K in the plan"));
}

TEST(ExpectationsTest, RecordsFoundByNamesWhenIdsDiffer) {
  const Experiment exp = load_expect(R"(expect:
  - {runs: {knobs: "64K", arch: arm64}, metric: faults, ">": 1000}
)");
  RunRecord r = record(exp, "arm64", "64K", {{1030, 1030}});
  r.id.run_id = "arm64.older-id.12345678";
  EXPECT_TRUE(evaluate_expectations(exp, {r})[0].held);
}

TEST(ExpectationsTest, SessionReportHasSection) {
  const Experiment exp = load_expect(R"(expect:
  - name: "64K mTHP serves anonymous faults"
    runs: {knobs: "64K"}
    metric: mthp.64kB.anon_fault_alloc
    ">": 0
  - runs: {knobs: "64K"}
    metric: faults
    ratio_to: {knobs: never}
    "<=": 0.05
)");
  const SessionReport report = build_session_report(exp, quickstart_records(exp));
  EXPECT_EQ(report.expectations_held, 1);
  EXPECT_EQ(report.expectations_failed, 1);
  const std::string text = session_text(report);
  EXPECT_THAT(text, HasSubstr("expectations:\n"
                              "  held: 64K mTHP serves anonymous faults\n"
                              "      [x86_64 · 6.12-mthp-vmstat · 64K · fault] "
                              "mthp.64kB.anon_fault_alloc = 1024 > 0\n"
                              "      [arm64 · 6.12-mthp-vmstat · 64K · fault] "
                              "mthp.64kB.anon_fault_alloc = 1024 > 0\n"
                              "  NOT HELD: faults / knobs=never <= 0.05 (knobs=64K)\n"
                              "      [x86_64 · 6.12-mthp-vmstat · 64K · fault] faults / never = "
                              "0.0625, not <= 0.05\n"));
  // After the tables.
  EXPECT_LT(text.find("6.12-mthp-vmstat · x86_64 · fault"), text.find("expectations:"));
}

TEST(ExpectationsTest, NoSectionWithoutExpectations) {
  const Experiment exp = load_expect("");
  const SessionReport report = build_session_report(exp, quickstart_records(exp));
  EXPECT_THAT(session_text(report), ::testing::Not(HasSubstr("expectations:")));
  EXPECT_EQ(report.expectations_held + report.expectations_failed, 0);
}

}  // namespace
}  // namespace foliolab
