// `foliolab gate`: judges a candidate-vs-baseline comparison against the `gate:` rules of the
// experiment. One case per rule × matching group; a rule that matches nothing fails (a gate
// that silently checks nothing is worse than none).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "model/experiment.h"

namespace foliolab {

inline constexpr int kGateSchema = 1;

enum class GateOutcome { kPass, kFail, kSkip };
std::string_view gate_outcome_name(GateOutcome o);  // "pass", "FAIL", "skip"

// What a case found. report/ words it (gate_message: "regressed: 1025 → 16.4k (+1499 %),
// allowed 0 %") from the numbers the case carries.
enum class GateFinding {
  kEmulatedTiming,   // skip: a TCG timing the rule's `timings:` does not cover
  kNoComparison,     // no delta against the baseline
  kTooFewSamples,    // fewer than kMinSamples on a side
  kChangedNotEqual,  // `equal: true` and the metric moved
  kUnchanged,        // `equal: true` and it did not
  kRegressed,        // moved in the worse direction beyond the limit
  kChangedBeyond,    // a direction-less metric moved beyond the limit
  kInconclusive,     // passes; the delta's note says why
  kWithinLimit,
  kNoResolvedChange,
  kNoMatch,  // no compared run has the metric
};

struct GateCase {
  std::string rule;   // GateRule::name
  std::string group;  // ComparisonGroup::title
  std::string metric;
  GateOutcome outcome = GateOutcome::kPass;
  GateFinding finding = GateFinding::kNoResolvedChange;
  Delta delta;  // candidate against baseline
  double base_median = NAN, cand_median = NAN;
  double limit = NAN;    // max_regression
  std::string selector;  // kNoMatch: the rule's runs
};

struct GateReport {
  ComparisonModel comparison;
  std::vector<GateCase> cases;
  int passed = 0, failed = 0, skipped = 0;
  bool ok() const { return failed == 0; }
};

// Timings measured under TCG are skipped unless the rule sets `timings: true`, or
// `timings: icount` and both sides measured instruction-time. A case moves when the
// comparison's verdict (compare_samples) is directional: the gate adds only its limit.
GateReport evaluate_gate(const std::vector<GateRule>& rules, ComparisonModel comparison);

}  // namespace foliolab
