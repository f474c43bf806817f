// The stopping rule twice: the guest agent's C (images/agent/repeat_rule.c, compiled into this
// test binary as it is) and the host's C++ port, on one table of cases whose expected stops and
// half-widths were computed independently (mpmath, exact t quantiles, 40 digits).
#include "catalog/repeat_rule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

extern "C" {
#include "../../images/agent/repeat_rule.h"
}

namespace foliolab {
namespace {

struct Rule {
  long min, max;
  double ci;
};
struct Stop {
  long n;
  RepeatStopReason reason;
  std::vector<double> half_width;  // relative, of each metric at the stop; -1 = none
};
struct Case {
  const char* name;
  std::vector<std::vector<double>> reps;  // [rep][metric]; NAN = the metric was null
  Rule rule;
  Stop want;
};

constexpr auto kReached = RepeatStopReason::kReached;
constexpr auto kMax = RepeatStopReason::kMax;

const std::vector<double> kQuiet = {1.00, 1.03, 0.98, 1.01, 0.99, 1.02, 1.00, 0.995, 1.005, 1.01};

std::vector<std::vector<double>> one_metric(const std::vector<double>& x) {
  std::vector<std::vector<double>> out;
  for (double v : x) out.push_back({v});
  return out;
}

std::vector<std::vector<double>> two_metrics(const std::vector<double>& a,
                                             const std::vector<double>& b) {
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back({a[i], b[i]});
  return out;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"quiet", one_metric(kQuiet), {3, 10, 0.02}, {6, kReached, {0.019535465741097757}}},
      {"noisy goes to max",
       one_metric({1, 2, 1, 2, 1, 2, 1, 2}),
       {3, 8, 0.05},
       {8, kMax, {0.29791465303936848}}},
      {"constant stops at min", one_metric({5, 5, 5, 5}), {3, 6, 0.01}, {3, kReached, {0}}},
      {"zero mean never reaches", one_metric({-1, 1, -1, 1, -1, 1}), {2, 6, 0.5}, {6, kMax, {-1}}},
      // The issue's arm64 icount reps: the slow first rep keeps the CI wide.
      {"a slow first rep",
       one_metric({42.85, 41.02, 41.06, 40.55, 41.00, 41.03, 40.98}),
       {3, 7, 0.01},
       {7, kMax, {0.016675583395933031}}},
      {"every metric must reach",
       two_metrics(kQuiet, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5}),
       {3, 10, 0.02},
       {6, kReached, {0.019535465741097757, 0}}},
      {"one noisy metric holds the run",
       two_metrics(kQuiet, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2}),
       {3, 9, 0.02},
       {9, kMax, {0.011650228860741408, 0.28047020619277074}}},
      {"a null keeps a metric from reaching",
       two_metrics(kQuiet, {5, NAN, 5, 5, 5, 5, 5, 5, 5, 5}),
       {3, 8, 0.02},
       {8, kMax, {0.013537292820551511, -1}}},
  };
  return kCases;
}

struct AgentOutcome {
  long n = 0;
  RepeatStopReason reason = RepeatStopReason::kContinue;
  std::vector<std::vector<double>> series;
};

// Feeds the reps one at a time, as the agent does, to the C or the C++ rule.
AgentOutcome run(const Case& c, bool use_c) {
  AgentOutcome out;
  out.series.resize(c.reps[0].size());
  for (size_t r = 0; r < c.reps.size(); ++r) {
    for (size_t m = 0; m < c.reps[r].size(); ++m) {
      if (!std::isnan(c.reps[r][m])) out.series[m].push_back(c.reps[r][m]);
    }
    const long n = static_cast<long>(r + 1);
    if (use_c) {
      std::vector<rr_series> s;
      for (const auto& x : out.series) s.push_back({x.data(), static_cast<long>(x.size())});
      const rr_stop stop = rr_decide(n, c.rule.min, c.rule.max, c.rule.ci, s.data(), s.size());
      out.reason = stop == RR_REACHED ? RepeatStopReason::kReached
                   : stop == RR_MAX   ? RepeatStopReason::kMax
                                      : RepeatStopReason::kContinue;
    } else {
      out.reason = decide_repeat(n, c.rule.min, c.rule.max, c.rule.ci, out.series);
    }
    out.n = n;
    if (out.reason != RepeatStopReason::kContinue) break;
  }
  return out;
}

void expect_half_width(double got, double want, const std::string& what) {
  if (want < 0) {
    EXPECT_TRUE(got < 0 || got > 1e300) << what << ": " << got;
  } else {
    EXPECT_NEAR(got, want, 1e-9 * std::max(want, 1e-12)) << what;
  }
}

TEST(RepeatRule, TheAgentsCAndTheHostsCxxStopAlike) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    for (bool use_c : {true, false}) {
      const AgentOutcome o = run(c, use_c);
      const std::string side = use_c ? "C" : "C++";
      EXPECT_EQ(o.n, c.want.n) << side;
      EXPECT_EQ(repeat_stop_reason_name(o.reason), repeat_stop_reason_name(c.want.reason)) << side;
      for (size_t m = 0; m < c.want.half_width.size(); ++m) {
        const auto& x = o.series[m];
        const bool complete = static_cast<long>(x.size()) == o.n;
        const double got_c =
            complete ? rr_rel_half_width(x.data(), static_cast<long>(x.size())) : -1;
        const auto cxx = relative_half_width(x);
        const double got_cxx = complete && cxx ? *cxx : -1;
        expect_half_width(use_c ? got_c : got_cxx, c.want.half_width[m],
                          side + " metric " + std::to_string(m));
      }
    }
  }
}

TEST(RepeatRule, HalfWidthsAlongTheWay) {
  // Independently computed relative half-widths of kQuiet's first n values.
  const double want[] = {0.18777642467253258,  0.062308400126668881, 0.032959155566346839,
                         0.023836211458083643, 0.019535465741097757, 0.015823342068479426,
                         0.013537292820551511, 0.011650228860741408, 0.01032520560996944};
  for (size_t n = 2; n <= kQuiet.size(); ++n) {
    const std::vector<double> x(kQuiet.begin(), kQuiet.begin() + static_cast<long>(n));
    EXPECT_NEAR(*relative_half_width(x), want[n - 2], 1e-10) << n;
    EXPECT_NEAR(rr_rel_half_width(x.data(), static_cast<long>(n)), want[n - 2], 1e-10) << n;
    // The decision is the same inequality on both sides of the target.
    for (double ci : {want[n - 2] * (1 - 1e-9), want[n - 2] * (1 + 1e-9)}) {
      EXPECT_EQ(half_width_within(x, ci), ci > want[n - 2]) << n;
      EXPECT_EQ(rr_within(x.data(), static_cast<long>(n), ci) != 0, ci > want[n - 2]) << n;
    }
  }
}

TEST(RepeatRule, TQuantilesAreConservativeBetweenRowsAndNormalBeyond) {
  for (long df : {1L, 2L, 7L, 30L, 35L, 45L, 120L, 121L, 100000L}) {
    EXPECT_EQ(t975(df), rr_t975(df)) << df;
  }
  EXPECT_NEAR(t975(1), 12.7062047362, 1e-10);
  EXPECT_NEAR(t975(30), 2.0422724563, 1e-10);
  EXPECT_EQ(t975(35), t975(30));  // t(35) = 2.0301: the df 30 row is the larger
  EXPECT_EQ(t975(59), t975(50));
  EXPECT_NEAR(t975(121), 1.95996398454, 1e-10);
}

TEST(RepeatRule, ReasonNames) {
  for (auto r : {RepeatStopReason::kReached, RepeatStopReason::kMax, RepeatStopReason::kFixed}) {
    EXPECT_EQ(parse_repeat_stop_reason(repeat_stop_reason_name(r)), r);
  }
  EXPECT_EQ(parse_repeat_stop_reason("stopped"), std::nullopt);
  EXPECT_STREQ(rr_stop_name(RR_REACHED), "reached");
  EXPECT_STREQ(rr_stop_name(RR_MAX), "max");
}

std::optional<double> json_number(const std::string& text, const char* name) {
  double v = 0;
  return rr_json_number(text.c_str(), text.size(), name, &v) ? std::optional(v) : std::nullopt;
}

// The agent reads a watched metric from the workload's JSON line as the host's parser would.
TEST(RepeatRule, AgentReadsOneNumberFromTheLastJsonLine) {
  const std::string fault =
      "{\"pages\":4096,\"faults\":4096,\"user_s\":0.01,\"sys_s\":0.4213,\"wall_s\":4.5e-1}\n"
      "FOLIOLAB-WORKLOAD-OK\n";
  EXPECT_EQ(json_number(fault, "sys_s"), 0.4213);
  EXPECT_EQ(json_number(fault, "wall_s"), 0.45);
  EXPECT_EQ(json_number(fault, "s"), std::nullopt);  // not a prefix match
  EXPECT_EQ(json_number(fault, "pages_x"), std::nullopt);
  EXPECT_EQ(json_number("{\"a\": null, \"b\" : -2}", "a"), std::nullopt);
  EXPECT_EQ(json_number("{\"a\": null, \"b\" : -2}", "b"), -2);
  // Nested values and strings holding quotes, braces and commas are skipped.
  EXPECT_EQ(json_number(R"({"n":{"x":1,"y":[1,{"z":2}]},"s":"a\",}{","x":7})", "x"), 7);
  EXPECT_EQ(json_number(R"({"x":"7"})", "x"), std::nullopt);
  EXPECT_EQ(json_number("{\"x\":1}\n  {\"x\":2}\nnot json {\"x\":3}\n", "x"), 2);
  EXPECT_EQ(json_number("{\"x\":1,\"x\":3}", "x"), 3);
  EXPECT_EQ(json_number("no JSON here\n", "x"), std::nullopt);
  EXPECT_EQ(json_number("{\"x\":", "x"), std::nullopt);
  EXPECT_EQ(json_number("{\"x\":inf}", "x"), std::nullopt);
}

}  // namespace
}  // namespace foliolab
