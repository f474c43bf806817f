// History's change points: the series a count's step and a timing's shift are found in, and
// what a bisection from one starts with.
#include "analysis/history.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

namespace foliolab {
namespace {

// Sessions 1..n of experiment "nightly"; value(session, rep) for one series.
void add_series(std::vector<IndexedSample>* out, const std::string& knobs, int sessions,
                double (*value)(int, int)) {
  for (int s = 1; s <= sessions; ++s) {
    IndexedRun run{.session_dir = fmt::format("/r/nightly/202611{:02}T000000Z", s),
                   .session = fmt::format("nightly/202611{:02}T000000Z", s),
                   .stamp = fmt::format("202611{:02}T000000Z", s),
                   .experiment = "nightly",
                   .kernel = "6.12",
                   .arch = "x86_64",
                   .knob_set = knobs,
                   .workload = "fault"};
    for (int rep = 0; rep < 3; ++rep) out->push_back({run, rep, value(s, rep)});
  }
}

TEST(HistoryChangePoints, CountStepNamesBothSessionsAndTheSelector) {
  std::vector<IndexedSample> samples;
  add_series(&samples, "4K", 8, [](int, int) { return 16385.0; });
  add_series(&samples, "64K mTHP", 8, [](int s, int) { return s >= 5 ? 1025.0 : 16385.0; });
  HistoryModel h = build_history("faults", samples);
  find_change_points(h);
  ASSERT_TRUE(h.change_points);
  ASSERT_EQ(h.series.size(), 2u);
  EXPECT_EQ(h.series[1].label, "nightly · 6.12 · x86_64 · 64K mTHP · fault");
  EXPECT_TRUE(h.series[0].change_points.empty());
  ASSERT_EQ(h.series[1].change_points.size(), 1u);
  const ChangePoint& c = h.series[1].change_points[0];
  EXPECT_EQ(c.kind, ChangeKind::kCountStep);
  EXPECT_EQ(h.series[1].change_kind, ChangeKind::kCountStep);
  EXPECT_EQ(c.before, 16385);
  EXPECT_EQ(c.after, 1025);

  const ChangePointBisect b = change_point_bisect(h, h.series[1], c);
  EXPECT_EQ(b.metric, "faults");
  EXPECT_EQ(b.experiment, "nightly");
  EXPECT_EQ(b.good_session, "nightly/20261104T000000Z");
  EXPECT_EQ(b.bad_session, "nightly/20261105T000000Z");
  EXPECT_EQ(b.bad_session_dir, "/r/nightly/20261105T000000Z");
  EXPECT_EQ(b.selector.knobs, "64K mTHP");
  auto where = parse_run_query(b.where);
  ASSERT_TRUE(where.ok()) << where.error().message;
  EXPECT_EQ(where->kernel, "6.12");
  EXPECT_EQ(where->arch, "x86_64");
  EXPECT_EQ(where->knobs, "64K mTHP");
  EXPECT_EQ(where->workload, "fault");

  auto found = find_change_point_bisect(h, "20261105T000000Z");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->good_session, "nightly/20261104T000000Z");
  auto none = find_change_point_bisect(h, "nightly/20261106T000000Z");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("nightly/20261105T000000Z (nightly · 6.12"),
            std::string::npos)
      << none.error().message;
}

TEST(HistoryChangePoints, TimingShiftNotACountsJitter) {
  std::vector<IndexedSample> samples;
  // sys_s: a 15 % shift at session 9 of 16, about 1 % noise.
  add_series(&samples, "4K", 16, [](int s, int rep) {
    return (s >= 9 ? 0.115 : 0.100) * (1 + 0.01 * ((s * 5 + rep * 3) % 5 - 2) / 2);
  });
  HistoryModel h = build_history("sys_s", samples);
  find_change_points(h);
  ASSERT_EQ(h.series.size(), 1u);
  EXPECT_EQ(h.series[0].change_kind, ChangeKind::kMeanShift);
  ASSERT_EQ(h.series[0].change_points.size(), 1u);
  EXPECT_EQ(h.series[0].change_points[0].index, 8u);
  EXPECT_NEAR(h.series[0].change_points[0].magnitude, 0.15, 0.01);

  // rss_kb jitters within its threshold (2048 kB) from rep to rep: not an exact count, no step.
  std::vector<IndexedSample> rss;
  add_series(&rss, "4K", 16, [](int s, int rep) { return 70000.0 + ((s + rep) % 3) * 600; });
  HistoryModel r = build_history("rss_kb", rss);
  find_change_points(r);
  EXPECT_TRUE(r.series[0].change_points.empty());
}

// A gate case takes the points of its session whose series its identity fields match; of
// several, the gravest verdict shows.
TEST(HistoryGate, VerdictsGoToTheirSessionsAndSeries) {
  std::vector<IndexedSample> samples;
  add_series(&samples, "4K", 3, [](int, int) { return 16385.0; });
  add_series(&samples, "64K mTHP", 3, [](int s, int) { return s == 3 ? 1100.0 : 1025.0; });
  HistoryModel h = build_history("faults", samples);
  const std::string third = "nightly/20261103T000000Z";
  std::vector<IndexedGateCase> cases = {
      {.session = third,
       .baseline = "nightly/20261102T000000Z",
       .metric = "faults",
       .outcome = "pass"},  // every series of the session
      {.session = third,
       .baseline = "nightly/20261102T000000Z",
       .metric = "faults",
       .knobs = "64K mTHP",
       .outcome = "FAIL"},
      {.session = third, .metric = "faults", .knobs = "64K mTHP", .outcome = "flaky"},
      {.session = "nightly/20261102T000000Z", .metric = "cpu_s", .outcome = "FAIL"},
      {.session = "nightly/20261102T000000Z",
       .metric = "faults",
       .arch = "arm64",
       .outcome = "FAIL"}};
  attach_gate_cases(h, cases);
  ASSERT_EQ(h.series.size(), 2u);
  EXPECT_EQ(h.series[0].points[2].gate, "pass");
  EXPECT_EQ(h.series[1].points[2].gate, "FAIL");
  EXPECT_EQ(h.series[1].points[2].gate_baseline, "nightly/20261102T000000Z");
  for (const HistorySeries& s : h.series) {
    EXPECT_EQ(s.points[0].gate, "");
    EXPECT_EQ(s.points[1].gate, "") << "another metric's case, another arch's case";
  }
}

}  // namespace
}  // namespace foliolab
