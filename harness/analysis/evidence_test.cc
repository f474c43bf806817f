// Kernel evidence in a comparison (analysis/evidence.h): an A/A of two identical sessions with
// events, a function profile, a census and a latency distribution calls no evidence row a
// change at the default thresholds (issue 56); 4K against 64K mTHP ranks the rows that moved
// first and lays the census out side by side.
#include "analysis/evidence.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/comparison.h"
#include "testing/evidence_fixture.h"

namespace foliolab {
namespace {

ComparisonGroup group_of(const std::vector<RunRecord>& base, const std::vector<RunRecord>& cand,
                         const std::string& base_label, const std::string& cand_label) {
  GroupRuns in;
  in.title = "6.12-mthp-vmstat · x86_64 · fault";
  VariantRuns a{base_label, {}, ""}, b{cand_label, {}, ""};
  for (const RunRecord& r : base) a.runs.push_back(&r);
  for (const RunRecord& r : cand) b.runs.push_back(&r);
  in.variants = {a, b};
  return compare_group(in, {});
}

bool is_directional(Verdict v) {
  return v == Verdict::kImproved || v == Verdict::kRegressed || v == Verdict::kChanged;
}

// Two sessions of the same experiment (each its own boots, so its own jitter), 3 and 10 reps
// a side, several pairs of sessions: no row of the evidence is called a change.
TEST(Evidence, AAOfTwoIdenticalSessionsCallsNoEvidenceRowAChange) {
  for (int reps : {3, 10}) {
    for (uint64_t pair = 0; pair < 10; ++pair) {
      for (const std::string knobs : {"4K", "64K"}) {
        const std::vector<RunRecord> a = {evidence_run(knobs, reps, 1000 + pair)};
        const std::vector<RunRecord> b = {evidence_run(knobs, reps, 2000 + pair)};
        const ComparisonGroup g = group_of(a, b, "A", "B");
        ASSERT_GT(g.evidence.ranked.size(), 50u) << "the profile's rows are evidence";
        for (size_t i : g.evidence.ranked) {
          const MetricRow& row = g.rows[i];
          ASSERT_TRUE(row.deltas[1]);
          EXPECT_FALSE(is_directional(row.deltas[1]->verdict))
              << row.metric << " " << knobs << " reps " << reps << " pair " << pair << ": "
              << verdict_name(row.deltas[1]->verdict) << " " << row.deltas[1]->rel_change;
        }
      }
    }
  }
}

TEST(Evidence, FourKAgainstSixtyFourKRanksWhatMovedFirst) {
  const std::vector<RunRecord> a = {evidence_run("4K", 3, 1)}, b = {evidence_run("64K", 3, 2)};
  const ComparisonGroup g = group_of(a, b, "4K", "64K");
  ASSERT_FALSE(g.evidence.ranked.empty());
  // From zero first (folio_zero_user, order-4 allocations, 64K folios), then the ×10 latency
  // and the 16× fewer faults.
  const MetricRow& top = g.rows[g.evidence.ranked.front()];
  EXPECT_TRUE(std::isinf(change_size(top))) << top.metric;
  std::vector<std::string> changed;
  for (size_t i : g.evidence.ranked) {
    const MetricRow& row = g.rows[i];
    if (is_directional(row.deltas[1]->verdict)) changed.push_back(row.metric);
    EXPECT_TRUE(row.evidence);
  }
  for (const char* want : {"kprobe.folio_zero_user", "kprobe.handle_mm_fault",
                           "event.kmem:mm_page_alloc[order=4]", "census.anon.64K.folios"}) {
    EXPECT_NE(std::find(changed.begin(), changed.end(), want), changed.end()) << want;
  }
  // The quantiles: 10x slower per fault, judged on 3 reps: no directional verdict (n too small
  // for p <= 0.0125), but ranked by its size.
  const auto p50 = std::find_if(g.rows.begin(), g.rows.end(), [](const MetricRow& r) {
    return r.metric == "kprobe.handle_mm_fault.latency_ns.p50";
  });
  ASSERT_NE(p50, g.rows.end());
  EXPECT_TRUE(p50->evidence);
  EXPECT_NEAR(p50->deltas[1]->rel_change, 9, 0.5);
  EXPECT_EQ(p50->deltas[1]->verdict, Verdict::kInconclusive);
  // faults is the workload's own metric, not evidence.
  for (const MetricRow& row : g.rows) EXPECT_EQ(row.evidence, row.metric != "faults") << row.metric;
}

TEST(Evidence, HistogramsShareBinsAndTheCensusIsSideBySide) {
  const std::vector<RunRecord> a = {evidence_run("4K", 3, 1)}, b = {evidence_run("64K", 3, 2)};
  const ComparisonGroup g = group_of(a, b, "4K", "64K");
  ASSERT_EQ(g.evidence.plots.size(), 1u);
  const DistributionPlot& p = g.evidence.plots[0];
  EXPECT_EQ(p.unit, "ns");
  ASSERT_EQ(p.fractions.size(), 2u);
  for (const auto& f : p.fractions) {
    ASSERT_EQ(f.size() + 1, p.edges.size());
    double total = 0;
    for (double x : f) total += x;
    EXPECT_NEAR(total, 1, 1e-9);
  }
  EXPECT_EQ(p.counts[1], 3 * (1024 + 36));
  EXPECT_LT(p.edges[1] - p.edges[0], p.edges.back() - p.edges[p.edges.size() - 2]);  // log bins
  EXPECT_NEAR(p.quantiles[1][0] / p.quantiles[0][0], 10, 0.5);                       // pooled p50s

  const CensusTable& c = g.evidence.census;
  EXPECT_EQ(c.whats, (std::vector<std::string>{"folios", "kb"}));
  ASSERT_EQ(c.rows.size(), 3u);  // anon 4K, anon 64K, file 4K
  EXPECT_EQ(c.rows[0].kind + " " + c.rows[0].size, "anon 4K");
  EXPECT_EQ(c.rows[1].kind + " " + c.rows[1].size, "anon 64K");
  EXPECT_EQ(c.rows[1].means[0], (std::vector<double>{0, 1024}));  // folios: 4K side, 64K side
  EXPECT_EQ(c.rows[1].means[1], (std::vector<double>{0, 65536}));
  EXPECT_TRUE(std::isnan(c.rows[2].means[0][0]));  // file 4K has kb only
}

}  // namespace
}  // namespace foliolab
