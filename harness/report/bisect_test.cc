#include "report/bisect.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

TEST(BisectText, TheAnswerThenTheEvidenceInCandidateOrder) {
  BisectOutcome out;
  out.state = BisectState::kDone;
  out.culprits = {{.first = 2, .last = 2, .from = "good", .to = "bad"}};
  out.steps = {{.candidate = 0, .cls = "good", .session = "s1", .evidence = "n=2: 0 0"},
               {.candidate = 3, .cls = "bad", .session = "s2", .evidence = "n=2: 64 64"},
               {.candidate = 2, .cls = "bad", .session = "s3", .evidence = "n=2: 64 64"},
               {.candidate = 1, .cls = std::nullopt, .session = "s4", .evidence = "failed"}};
  out.confirmations = {{.parent = 1,
                        .culprit = 2,
                        .confirmed = true,
                        .evidence = "a → b",
                        .sessions = {"s5", "s6"}}};
  const std::string text =
      bisect_text({"faults", "4 knob sets", "arch=x86_64"}, out, {"a", "b", "c", "d"});
  EXPECT_EQ(text,
            "bisect faults over 4 knob sets (arch=x86_64): culprit c (good → bad), confirmed\n"
            "  candidate  class     values · session\n"
            "  a          good      n=2: 0 0 · s1\n"
            "  b          skipped   failed · s4\n"
            "  c          bad       n=2: 64 64 · s3\n"
            "  d          bad       n=2: 64 64 · s2\n"
            "confirmation, 2 fresh session(s): a → b: confirmed\n");
  out.confirmations[0].confirmed = false;
  EXPECT_NE(bisect_text({"faults", "4 knob sets", ""}, out, {"a", "b", "c", "d"})
                .find("culprit c (good → bad), UNCONFIRMED"),
            std::string::npos);
}

TEST(BisectText, StepLines) {
  BisectStep s{.candidate = 5, .cls = "bad", .evidence = "n=2: 64 64"};
  EXPECT_EQ(bisect_step_line(s, "knob set 'v6' (6 of 8)", 3, 3),
            "[step 3/3] knob set 'v6' (6 of 8): n=2: 64 64 (bad)");
  s.cls.reset();
  EXPECT_EQ(bisect_step_line(s, "v6", 0, 3), "[end] v6: n=2: 64 64 (skipped)");
}

}  // namespace
}  // namespace foliolab
