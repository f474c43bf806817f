// `foliolab gate`: judges a candidate-vs-baseline comparison against the `gate:` rules of the
// experiment. One case per rule × matching group; a rule that matches nothing fails (a gate
// that silently checks nothing is worse than none).
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "model/experiment.h"

namespace foliolab {

inline constexpr int kGateSchema = 1;

enum class GateOutcome { kPass, kFail, kSkip };
std::string_view gate_outcome_name(GateOutcome o);  // "pass", "FAIL", "skip"

struct GateCase {
  std::string rule;     // GateRule::name
  std::string group;    // ComparisonGroup::title
  std::string metric;
  GateOutcome outcome = GateOutcome::kPass;
  std::string message;  // "regressed: 1025 → 16.4k (+1499 %), allowed 0 %"
};

struct GateReport {
  ComparisonModel comparison;
  std::vector<GateCase> cases;
  int passed = 0, failed = 0, skipped = 0;
  bool ok() const { return failed == 0; }
};

// Timings measured under TCG are skipped unless the rule sets `timings: true`.
GateReport evaluate_gate(const std::vector<GateRule>& rules, ComparisonModel comparison);

}  // namespace foliolab
