#include "analysis/gate_confirm.h"

#include <gtest/gtest.h>

#include "testing/record_fixture.h"

namespace foliolab {
namespace {

GateCase failing() {
  return GateCase{.rule = "r",
                  .group = "g",
                  .metric = "faults",
                  .outcome = GateOutcome::kFail,
                  .finding = GateFinding::kRegressed,
                  .group_index = 0};
}

GateRerun completed(GateOutcome outcome, GateFinding finding) {
  GateRerun r{.rounds = 2, .completed = true};
  take_judgement(r, GateCase{.outcome = outcome, .finding = finding, .cand_median = 7});
  return r;
}

TEST(GateConfirm, ARerunThatPassesMakesTheCaseFlaky) {
  const GateCase c =
      confirm_case(failing(), completed(GateOutcome::kPass, GateFinding::kNoResolvedChange));
  EXPECT_EQ(c.outcome, GateOutcome::kFlaky);
  ASSERT_TRUE(c.rerun);
  EXPECT_EQ(c.rerun->finding, GateFinding::kNoResolvedChange);
  EXPECT_EQ(c.rerun->cand_median, 7);
  EXPECT_EQ(c.finding, GateFinding::kRegressed);  // the original finding stays
}

TEST(GateConfirm, ARerunThatFailsAgainConfirmsTheFailure) {
  EXPECT_EQ(confirm_case(failing(), completed(GateOutcome::kFail, GateFinding::kRegressed)).outcome,
            GateOutcome::kFail);
  // An inconclusive rerun does not confirm: the reruns alone must fail the rule.
  EXPECT_EQ(
      confirm_case(failing(), completed(GateOutcome::kPass, GateFinding::kInconclusive)).outcome,
      GateOutcome::kFlaky);
}

TEST(GateConfirm, ARerunThatCouldNotCompleteIsInfraNotARegression) {
  GateRerun r{.rounds = 2, .retries = kInfraRetries, .completed = false};
  const GateCase c = confirm_case(failing(), r);
  EXPECT_EQ(c.outcome, GateOutcome::kInfra);
  GateReport report;
  report.cases = {c, failing()};
  count_outcomes(report);
  EXPECT_EQ(report.infra, 1);
  EXPECT_EQ(report.failed, 1);
  EXPECT_FALSE(report.ok());
  report.cases = {c};
  count_outcomes(report);
  EXPECT_FALSE(report.ok());  // infra alone does not pass either
}

TEST(GateConfirm, TimeoutsAndHostFailuresAreIncompleteGuestFailuresAreNot) {
  FakeRun f;
  RunRecord ok = fake_record(f);
  RunRecord timed_out = ok, host = ok, panic = ok;
  timed_out.status = "timed-out";
  host.status = "boot-failed";
  host.failure = FailureClass::kHost;
  host.reason = "QEMU could not start";
  panic.status = "failed";
  panic.failure = FailureClass::kGuest;
  EXPECT_FALSE(run_incomplete(ok));
  EXPECT_TRUE(run_incomplete(timed_out));
  EXPECT_TRUE(run_incomplete(host));
  EXPECT_FALSE(run_incomplete(panic));  // a panicking candidate is a result
  const std::string id = ok.id.run_id;
  EXPECT_FALSE(incomplete_run({ok}, {id}));
  EXPECT_EQ(incomplete_run({host}, {id}), id + ": QEMU could not start");
  EXPECT_EQ(incomplete_run({}, {id}), id + ": no record");
}

TEST(GateConfirm, TheRerunCaseIsTheOneOfTheSameRuleMetricAndGroup) {
  GateReport rerun;
  GateCase other = failing();
  other.group = "h";
  GateCase same = failing();
  same.outcome = GateOutcome::kPass;
  rerun.cases = {other, same};
  auto found = rerun_case(failing(), rerun);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->group, "g");
  rerun.cases = {other};
  EXPECT_EQ(rerun_case(failing(), rerun)->group, "h");  // the title changed: the rule's case
  rerun.cases.clear();
  EXPECT_FALSE(rerun_case(failing(), rerun));
}

}  // namespace
}  // namespace foliolab
