#include "analysis/gate.h"

#include <gtest/gtest.h>

#include "testing/record_fixture.h"

namespace foliolab {
namespace {

// sys_s 20 % slower in the candidate, n=5 alone on the host; `timing` is the provenance.
ComparisonModel slower_sys(const std::string& timing) {
  FakeRun f;
  f.metrics = {{"sys_s", {1.00, 1.01, 0.99, 1.00, 1.00}}};
  RunRecord a = fake_record(f);
  f.metrics = {{"sys_s", {1.20, 1.21, 1.19, 1.20, 1.20}}};
  RunRecord b = fake_record(f);
  for (RunRecord* r : {&a, &b}) {
    r->provenance.guests_beside = 0;
    r->provenance.timing = timing;
  }
  GroupRuns in{"g", "k", "x86_64", "fault", "4K", {{"base", {&a}, ""}, {"cand", {&b}, ""}}};
  ComparisonModel m;
  m.kind = "gate";
  m.groups.push_back(compare_group(in, {}));
  return m;
}

GateCase judge(GateTimings timings, const std::string& provenance_timing) {
  GateRule rule;
  rule.name = "sys_s";
  rule.metric = "sys_s";
  rule.max_regression = 0.10;
  rule.timings = timings;
  const GateReport r = evaluate_gate({rule}, slower_sys(provenance_timing));
  EXPECT_EQ(r.cases.size(), 1u);
  return r.cases.at(0);
}

TEST(Gate, IcountTimingsAreJudgedOnlyWhenTheRuleSaysIcount) {
  EXPECT_EQ(judge(GateTimings::kNone, "icount").outcome, GateOutcome::kSkip);
  EXPECT_EQ(judge(GateTimings::kIcount, "wall").outcome, GateOutcome::kSkip);
  const GateCase icount = judge(GateTimings::kIcount, "icount");
  EXPECT_EQ(icount.outcome, GateOutcome::kFail);
  EXPECT_EQ(icount.finding, GateFinding::kRegressed);
  EXPECT_EQ(judge(GateTimings::kAll, "wall").outcome, GateOutcome::kFail);  // timings: true
}

TEST(Gate, ACaseMovesOnlyWhenTheVerdictDoes) {
  // 3 vs 3 reps can never be directional (exact p >= 0.10): the gate passes it as
  // inconclusive, whatever the interval says.
  FakeRun f;
  f.metrics = {{"sys_s", {1.00, 1.01, 0.99}}};
  RunRecord a = fake_record(f);
  f.metrics = {{"sys_s", {1.20, 1.21, 1.19}}};
  RunRecord b = fake_record(f);
  a.provenance.guests_beside = b.provenance.guests_beside = 0;
  GroupRuns in{"g", "k", "x86_64", "fault", "4K", {{"base", {&a}, ""}, {"cand", {&b}, ""}}};
  ComparisonModel m;
  m.groups.push_back(compare_group(in, {}));
  GateRule rule;
  rule.metric = "sys_s";
  rule.max_regression = 0.10;
  rule.timings = GateTimings::kAll;
  const GateReport r = evaluate_gate({rule}, m);
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].outcome, GateOutcome::kPass);
  EXPECT_EQ(r.cases[0].finding, GateFinding::kInconclusive);
}

}  // namespace
}  // namespace foliolab
