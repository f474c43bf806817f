// `foliolab gate`: judges a candidate-vs-baseline comparison against the `gate:` rules of the
// experiment. One case per rule × matching group; a rule that matches nothing fails (a gate
// that silently checks nothing is worse than none).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "model/experiment.h"

namespace foliolab {

// 2: flaky, infra and known outcomes and counts, reruns, known issues (report/json.h).
inline constexpr int kGateSchema = 2;

// kFlaky, kInfra (gate --confirm, analysis/gate_confirm.h) and kKnown (--known-issues,
// analysis/known_issues.h) are what a failure became: only kFail and kInfra make a gate fail.
enum class GateOutcome { kPass, kFail, kSkip, kFlaky, kInfra, kKnown };
// "pass", "FAIL", "skip", "flaky", "INFRA", "known"
std::string_view gate_outcome_name(GateOutcome o);

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

// What `gate --confirm N` found when it reran a failing case (analysis/gate_confirm.h): N
// rounds, each a fresh baseline session then a fresh candidate session of the case's runs.
struct GateRerun {
  int rounds = 0;
  int retries = 0;             // sessions run again because a run in them could not complete
  bool completed = false;      // every round completed within its retries
  std::string incomplete_why;  // !completed: the reason of the run that could not complete
  // The case judged on the reruns alone.
  GateOutcome outcome = GateOutcome::kFail;
  GateFinding finding = GateFinding::kNoComparison;
  double base_median = NAN, cand_median = NAN;
  Delta delta;
  std::vector<std::string> sessions;  // in the order they ran
};

struct GateCase {
  std::string rule;   // GateRule::name
  std::string group;  // ComparisonGroup::title
  std::string metric;
  GateOutcome outcome = GateOutcome::kPass;
  GateFinding finding = GateFinding::kNoResolvedChange;
  Delta delta;  // candidate against baseline
  double base_median = NAN, cand_median = NAN;
  double limit = NAN;               // max_regression
  std::string selector;             // kNoMatch: the rule's runs
  int group_index = -1;             // into GateReport::comparison.groups; -1 for kNoMatch
  std::optional<GateRerun> rerun;   // kFail, kFlaky, kInfra after `gate --confirm`
  std::string known_id, known_url;  // kKnown: the known issue it matched
  std::string known_expires;        // its expires: date, YYYY-MM-DD
};

// A known issue (--known-issues) that suppressed nothing: expired (it suppresses nothing and
// says so), or none of its cases fails any more ("fixed?").
struct KnownIssueNote {
  std::string id, url, expires;  // expires: YYYY-MM-DD
  bool expired = false;
};

struct GateReport {
  ComparisonModel comparison;
  std::vector<GateCase> cases;
  int passed = 0, failed = 0, skipped = 0, flaky = 0, infra = 0, known = 0;
  std::vector<KnownIssueNote> known_notes;
  bool ok() const { return failed == 0 && infra == 0; }
};

// Recounts passed/failed/... from the cases' outcomes.
void count_outcomes(GateReport& report);

// Whether a rule's (or a known issue's) selector takes the group: every field it gives equals
// the group's shared one.
bool gate_selects(const RunSelector& sel, const ComparisonGroup& g);

// Timings measured under TCG are skipped unless the rule sets `timings: true`, or
// `timings: icount` and both sides measured instruction-time. A case moves when the
// comparison's verdict (compare_samples) is directional: the gate adds only its limit.
GateReport evaluate_gate(const std::vector<GateRule>& rules, ComparisonModel comparison);

}  // namespace foliolab
