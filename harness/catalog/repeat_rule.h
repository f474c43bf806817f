// The stopping rule of adaptive repetitions on the host: the C++ port of the guest agent's
// rule (images/agent/repeat_rule.h, which runs the reps in the guest and, through the host
// backend, on the host too). The host uses it to check the agent's repeat-stop record against
// the recorded reps and to state the half-widths a fixed `repeat: N` run reached. Both share
// the t table (images/agent/t975.h) and one table of test cases (repeat_rule_test.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foliolab {

enum class RepeatStopReason { kContinue, kReached, kMax, kFixed };
std::string_view repeat_stop_reason_name(RepeatStopReason r);  // "continue", "reached", ...
std::optional<RepeatStopReason> parse_repeat_stop_reason(std::string_view name);

// Why a run did as many reps as it did (RunRecord::repeat_stop): the agent's repeat-stop
// record for adaptive repetitions, or the host's account of a fixed count.
struct RepeatStop {
  RepeatStopReason reason = RepeatStopReason::kFixed;
  int n = 0;          // measured reps (warm-up reps not counted)
  int warmup = 0;     // warm-up reps before them
  double target = 0;  // the target half-width over |mean| (0: none)
  // Each watched metric's half-width over |mean| at the stop; nullopt = not computable (a rep
  // without the metric, a zero mean).
  std::vector<std::pair<std::string, std::optional<double>>> half_width;
  // The widest half-width; nullopt when there is none or one is not computable.
  std::optional<double> widest() const;
  bool operator==(const RepeatStop&) const = default;
};

// The 0.975 quantile of Student's t with df >= 1 (the agent's table).
double t975(long df);

// t^2 * var / n <= ci^2 * mean^2 (n >= 2): the half-width of the mean within ci * |mean|.
bool half_width_within(const std::vector<double>& x, double ci);

// The half-width relative to |mean|: 0 for equal values, nullopt for n < 2 or a zero mean with
// spread.
std::optional<double> relative_half_width(const std::vector<double>& x);

// After n measured reps, one series per watched metric (the values the reps gave: a series
// shorter than n never counts as reached). kContinue, kReached or kMax, as rr_decide.
RepeatStopReason decide_repeat(long n, long min, long max, double ci,
                               const std::vector<std::vector<double>>& series);

}  // namespace foliolab
