// The host's checks of adaptive repetitions in a guest report (protocol/repeat_stop.h).
#include "protocol/repeat_stop.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "protocol/run_report.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

const std::vector<double> kSys = {0.50, 0.42, 0.43, 0.41, 0.42, 0.43};

// A fault run: `warm` warm-up reps, then one rep per value of sys_s.
StreamBuilder reps(const std::vector<double>& sys, int warm) {
  StreamBuilder b;
  b.prologue();
  for (int i = 0; i < static_cast<int>(sys.size()); ++i) {
    b.counters(i, "before", 1000, 10);
    KeyValues w = {{"rep", std::to_string(i)},
                   {"name", "fault"},
                   {"exit_status", "0"},
                   {"signal", "0"},
                   {"wall_ns", "1000"}};
    if (i < warm) w.emplace_back("warmup", "1");
    b.kv("workload", w);
    b.out(fmt::format("{{\"pages\":4096,\"sys_s\":{}}}\nFOLIOLAB-WORKLOAD-OK\n", sys[i]));
    b.counters(i, "after", 5000, 10);
  }
  return b;
}

RepeatPlan plan() {
  return RepeatPlan{.min = 3, .max = 8, .warmup = 1, .ci = 0.05, .metrics = {"sys_s"}};
}

// The half-width the host computes for measured reps [1, 1 + n).
std::string hw(size_t n) {
  return fmt::format("{:.17g}", *relative_half_width({kSys.begin() + 1, kSys.begin() + 1 + n}));
}

TEST(RepeatStop, ReachedIsCheckedAgainstTheHostsRule) {
  // 0.42, 0.43, 0.41: ±5.9 % at n=3; with 0.41 ±3.1 % at n=4, within 5 %.
  StreamBuilder b = reps({kSys.begin(), kSys.begin() + 5}, 1);
  b.kv("repeat-stop", {{"reason", "reached"},
                       {"n", "4"},
                       {"warmup", "1"},
                       {"target", "0.050000000000000003"},
                       {"half_width.sys_s", hw(4)}})
      .done();
  RunReport r = parse_run_report(b.bytes(), plan());
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_TRUE(r.repeat_stop);
  EXPECT_EQ(r.repeat_stop->reason, RepeatStopReason::kReached);
  EXPECT_EQ(r.repeat_stop->n, 4);
  EXPECT_TRUE(r.reps[0].warmup);
  EXPECT_FALSE(r.reps[1].warmup);
  ASSERT_EQ(r.repeat_stop->half_width.size(), 1u);
  EXPECT_NEAR(*r.repeat_stop->half_width[0].second, 0.0309, 0.0005);
}

TEST(RepeatStop, AClaimTheRulesDoNotMakeFailsTheRun) {
  auto with = [](size_t n, const std::string& reason, const std::string& width) {
    StreamBuilder b = reps({kSys.begin(), kSys.begin() + 1 + static_cast<long>(n)}, 1);
    b.kv("repeat-stop", {{"reason", reason},
                         {"n", std::to_string(n)},
                         {"warmup", "1"},
                         {"target", "0.05"},
                         {"half_width.sys_s", width}})
        .done();
    return parse_run_report(b.bytes(), plan());
  };
  EXPECT_TRUE(with(4, "reached", hw(4)).ok);
  EXPECT_EQ(with(4, "max", hw(4)).reason,
            "the agent stopped (max) after 4 reps where the host's rule says reached");
  EXPECT_EQ(with(3, "reached", hw(3)).reason,
            "the agent stopped (reached) after 3 reps where the host's rule says continue");
  EXPECT_EQ(with(5, "reached", hw(5)).reason,
            "the agent went on after rep 4, where the host's rule stops");
  EXPECT_EQ(with(4, "reached", "0.5").reason.substr(0, 38),
            "repeat-stop half-width of sys_s is 0.5");
  // Without a stop record, or with the warm-up rep unmarked.
  StreamBuilder none = reps({kSys.begin(), kSys.begin() + 4}, 1);
  none.done();
  EXPECT_EQ(parse_run_report(none.bytes(), plan()).reason,
            "adaptive repetitions ended without a repeat-stop record");
  StreamBuilder unmarked = reps({kSys.begin(), kSys.begin() + 4}, 0);
  unmarked.done();
  EXPECT_EQ(parse_run_report(unmarked.bytes(), plan()).reason,
            "rep 0 is not a warm-up rep, the job has 1 of them");
}

// A fixed count gets the host's account: reason fixed, the watched metrics' half-widths.
TEST(RepeatStop, AFixedCountIsAccountedForByTheHost) {
  RepeatPlan fixed{.min = 5, .max = 5, .warmup = 1, .metrics = {"sys_s", "wall_s"}};
  StreamBuilder b = reps(kSys, 1);
  b.done();
  RunReport r = parse_run_report(b.bytes(), fixed);
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_TRUE(r.repeat_stop);
  EXPECT_EQ(r.repeat_stop->reason, RepeatStopReason::kFixed);
  EXPECT_EQ(r.repeat_stop->n, 5);
  EXPECT_EQ(r.repeat_stop->half_width[0].first, "sys_s");
  EXPECT_EQ(fmt::format("{:.17g}", *r.repeat_stop->half_width[0].second), hw(5));
  EXPECT_EQ(r.repeat_stop->half_width[1].second, std::nullopt);  // fault printed no wall_s here
  fixed.min = 6;
  EXPECT_EQ(parse_run_report(b.bytes(), fixed).reason, "expected 7 repetitions, guest reported 6");
}

TEST(RepeatStop, ParsesTheRecord) {
  std::string why;
  auto s = parse_repeat_stop({{"reason", "max"},
                              {"n", "30"},
                              {"warmup", "0"},
                              {"target", "0.02"},
                              {"half_width.sys_s", "0.034"},
                              {"half_width.wall_s", "none"}},
                             &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->reason, RepeatStopReason::kMax);
  EXPECT_EQ(s->widest(), std::nullopt);  // wall_s has none
  EXPECT_EQ(s->half_width[0], (std::pair<std::string, std::optional<double>>{"sys_s", 0.034}));
  EXPECT_FALSE(parse_repeat_stop({{"reason", "fixed"}, {"n", "3"}}, &why));  // not the agent's
  EXPECT_FALSE(parse_repeat_stop({{"reason", "max"}, {"n", "-1"}}, &why));
  EXPECT_FALSE(parse_repeat_stop({{"reason", "max"}, {"n", "3"}, {"half_width.x", "inf"}}, &why));
}

}  // namespace
}  // namespace foliolab
