#include "analysis/regression.h"

#include <gtest/gtest.h>

#include "testing/record_fixture.h"

namespace foliolab {
namespace {

// One column's record: fault counts, a vmstat counter and evidence per rep.
RunRecord column(const std::string& kernel, double faults, int64_t extra_calls, int64_t folios,
                 int64_t steady) {
  FakeRun f{.kernel = kernel};
  f.metrics["faults"] = {faults, faults, faults, faults};
  f.metrics["wall_s"] = {0.5, 0.51, 0.5, 0.49};
  f.deltas["vmstat.pgfault"] = {
      static_cast<int64_t>(faults) + 10, static_cast<int64_t>(faults) + 11,
      static_cast<int64_t>(faults) + 10, static_cast<int64_t>(faults) + 12};
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  f.metrics["kprobe.planted_extra_work"] = {d(extra_calls), d(extra_calls), d(extra_calls),
                                            d(extra_calls)};
  f.metrics["census.anon.64K.folios"] = {d(folios), d(folios), d(folios), d(folios)};
  f.metrics["func.handle_mm_fault"] = {d(steady), d(steady + 1), d(steady), d(steady + 2)};
  RunRecord r = fake_record(f);
  r.provenance.kernel_build_id = "id-" + kernel;
  r.id.machine.cpus = 1;
  r.id.machine.memory_mb = 512;
  return r;
}

ComparisonGroup group_of(const std::vector<RunRecord>& columns) {
  GroupRuns in{.title = "x86_64 · 4K · fault",
               .kernel = "",
               .arch = "x86_64",
               .workload = "fault",
               .knobs = "4K"};
  for (const RunRecord& r : columns) in.variants.push_back({r.id.kernel.name, {&r}, ""});
  return compare_group(in, CompareOptions{.keep = {"faults"}});
}

TEST(Regression, TheHeadlineFirstThenWhatMovedRankedAndTheEvidenceApart) {
  const std::vector<RunRecord> cols = {column("parent", 4096, 0, 0, 4100),
                                       column("culprit", 8192, 8192, 64, 24600)};
  const RegressionReport r =
      regression_of(group_of(cols), "faults", {"parent", "culprit"}, cols[0]);
  ASSERT_FALSE(r.moved.empty());
  ASSERT_NE(r.headline(), nullptr);
  EXPECT_EQ(r.moved[0].metric, "faults");
  std::vector<std::string> order;
  for (const RegressionRow& row : r.moved) order.push_back(row.metric);
  // vmstat.pgfault (workload side) before the evidence; among the evidence the functions first,
  // the one from a zero baseline (an added call) largest of them; the census last.
  const std::vector<std::string> want = {"faults", "vmstat.pgfault", "kprobe.planted_extra_work",
                                         "func.handle_mm_fault", "census.anon.64K.folios"};
  EXPECT_EQ(order, want);
  EXPECT_FALSE(r.moved[1].evidence);
  EXPECT_TRUE(r.moved[2].evidence);
  EXPECT_GE(r.unchanged, 1u);  // wall_s did not move
  EXPECT_EQ(r.columns[1].build_id, "id-culprit");
  EXPECT_EQ(r.machine.cpus, 1);
  EXPECT_EQ(r.cell.arch, "x86_64");
}

TEST(Regression, NothingMovedIsNoHeadlineAndEveryRowUnchanged) {
  const std::vector<RunRecord> cols = {column("a", 4096, 0, 0, 4100),
                                       column("b", 4096, 0, 0, 4100)};
  const RegressionReport r =
      regression_of(group_of(cols), "faults", {"parent", "culprit"}, cols[0]);
  EXPECT_TRUE(r.moved.empty());
  EXPECT_EQ(r.headline(), nullptr);
  EXPECT_GT(r.unchanged, 3u);
}

TEST(Regression, FixesAreJudgedAgainstTheParentOnTheHeadlineMetric) {
  const std::vector<RunRecord> cols = {
      column("parent", 4096, 0, 0, 4100), column("culprit", 8192, 8192, 64, 8200),
      column("fixed", 4096, 0, 0, 4100), column("partly", 5000, 0, 0, 4100),
      column("not", 8192, 8192, 64, 8200)};
  RegressionReport r = regression_of(group_of(cols), "faults",
                                     {"parent", "culprit", "fixed", "partly", "not"}, cols[0]);
  judge_fixes(r);
  ASSERT_EQ(r.fixes.size(), 3u);
  EXPECT_EQ(r.fixes[0], FixVerdict::kFixed);
  EXPECT_EQ(r.fixes[1], FixVerdict::kPartlyFixed);
  EXPECT_EQ(r.fixes[2], FixVerdict::kNotFixed);
  EXPECT_EQ(fix_verdict_name(r.fixes[1]), "partly fixed");
}

GateCase failing(const std::string& metric, int group, double change) {
  GateCase c{.rule = "r", .group = "g", .metric = metric, .outcome = GateOutcome::kFail};
  c.group_index = group;
  c.delta.rel_change = change;
  return c;
}

TEST(Regression, GateFailuresOfOneChangeAreOneGroup) {
  GateReport g;
  for (const char* cand : {"B", "B", "C"}) {
    ComparisonGroup cg;
    cg.variants = {VariantInfo{.label = "base", .kernel_build_id = "A"},
                   VariantInfo{.label = "cand", .kernel_build_id = cand}};
    cg.rows.push_back(MetricRow{.metric = "faults", .info = metric_info("faults")});
    cg.rows.push_back(MetricRow{.metric = "wall_s", .info = metric_info("wall_s")});
    g.comparison.groups.push_back(cg);
  }
  g.cases = {failing("faults", 0, 0.1), failing("faults", 1, 3.0), failing("wall_s", 0, 0.2),
             failing("faults", 2, 1.0)};
  g.cases.push_back(failing("faults", 0, 9.0));
  g.cases.back().outcome = GateOutcome::kFlaky;  // not a failure: in no group
  const auto groups = group_gate_failures(g);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], (std::vector<size_t>{1, 0}));  // A→B counts, the largest change first
  EXPECT_EQ(groups[1], (std::vector<size_t>{2}));     // A→B timings
  EXPECT_EQ(groups[2], (std::vector<size_t>{3}));     // A→C counts
}

}  // namespace
}  // namespace foliolab
