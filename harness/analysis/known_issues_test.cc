#include "analysis/known_issues.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

using std::chrono::day;
using std::chrono::month;
using std::chrono::year;
using std::chrono::year_month_day;

const year_month_day kToday{year(2027), month(1), day(10)};

// One group (k · x86_64 · fault, knobs 4K) with a faults case of the given outcome and change.
GateReport report(GateOutcome outcome, double rel_change, double cand_median = 110) {
  GateReport r;
  ComparisonGroup g;
  g.title = "k · x86_64 · fault";
  g.kernel = "k";
  g.arch = "x86_64";
  g.workload = "fault";
  g.knobs = "4K";
  r.comparison.groups.push_back(g);
  GateCase c{.rule = "faults",
             .group = g.title,
             .metric = "faults",
             .outcome = outcome,
             .finding = outcome == GateOutcome::kPass ? GateFinding::kNoResolvedChange
                                                      : GateFinding::kRegressed,
             .cand_median = cand_median,
             .group_index = 0};
  c.delta.rel_change = rel_change;
  c.delta.threshold = 1;
  r.cases.push_back(c);
  count_outcomes(r);
  return r;
}

KnownIssue issue(KnownEffect effect, double amount) {
  KnownIssue k{.id = "mm-1", .metric = "faults", .effect = effect, .amount = amount};
  k.url = "https://example.org/mm-1";
  k.expires = year_month_day{year(2027), month(1), day(31)};
  k.expires_text = "2027-01-31";
  return k;
}

TEST(KnownIssues, AMatchingRegressionWithinTheExpectedEffectIsKnown) {
  GateReport r = report(GateOutcome::kFail, 0.05);
  apply_known_issues(r, {issue(KnownEffect::kRegressed, 0.08)}, kToday);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kKnown);
  EXPECT_EQ(r.cases[0].known_id, "mm-1");
  EXPECT_EQ(r.known, 1);
  EXPECT_EQ(r.failed, 0);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.known_notes.empty());
}

TEST(KnownIssues, ALargerRegressionThanExpectedStillFails) {
  GateReport r = report(GateOutcome::kFail, 0.20);
  apply_known_issues(r, {issue(KnownEffect::kRegressed, 0.08)}, kToday);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kFail);
  EXPECT_TRUE(r.known_notes.empty());  // its case fails: not "fixed?"
}

TEST(KnownIssues, ValueAndFlakyEffects) {
  GateReport r = report(GateOutcome::kFail, 0.10, 110);
  apply_known_issues(r, {issue(KnownEffect::kValue, 111)}, kToday);  // within the threshold 1
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kKnown);
  r = report(GateOutcome::kFail, 0.10, 110);
  apply_known_issues(r, {issue(KnownEffect::kValue, 120)}, kToday);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kFail);
  r = report(GateOutcome::kFlaky, 0.50);
  apply_known_issues(r, {issue(KnownEffect::kFlaky, 0)}, kToday);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kKnown);
}

TEST(KnownIssues, TheSelectorAndMetricMustTakeTheCase) {
  GateReport r = report(GateOutcome::kFail, 0.05);
  KnownIssue arm = issue(KnownEffect::kFlaky, 0);
  arm.runs.arch = Arch::kArm64;
  KnownIssue other_metric = issue(KnownEffect::kFlaky, 0);
  other_metric.metric = "sys_s";
  apply_known_issues(r, {arm, other_metric}, kToday);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kFail);
  ASSERT_EQ(r.known_notes.size(), 2u);  // neither covers a failing case: both "fixed?"
  EXPECT_FALSE(r.known_notes[0].expired);
}

TEST(KnownIssues, ACaseThatNoLongerFailsIsFixedQuestionMark) {
  GateReport r = report(GateOutcome::kPass, 0);
  apply_known_issues(r, {issue(KnownEffect::kRegressed, 0.08)}, kToday);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kPass);
  ASSERT_EQ(r.known_notes.size(), 1u);
  EXPECT_EQ(r.known_notes[0].id, "mm-1");
  EXPECT_FALSE(r.known_notes[0].expired);
}

TEST(KnownIssues, AnExpiredEntrySuppressesNothingAndIsReported) {
  const KnownIssue k = issue(KnownEffect::kFlaky, 0);
  EXPECT_FALSE(known_issue_expired(k, year_month_day{year(2027), month(1), day(31)}));
  EXPECT_TRUE(known_issue_expired(k, year_month_day{year(2027), month(2), day(1)}));
  GateReport r = report(GateOutcome::kFail, 0.05);
  apply_known_issues(r, {k}, year_month_day{year(2027), month(2), day(1)});
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kFail);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.known_notes.size(), 1u);
  EXPECT_TRUE(r.known_notes[0].expired);
}

}  // namespace
}  // namespace foliolab
