#include "report/gate_layout.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "report/cells.h"
#include "report/comparison_layout.h"
#include "report/number_format.h"

namespace foliolab {
namespace {

TextTable gate_cases_table(const GateReport& r, bool all) {
  TextTable t;
  t.title = all ? "gate checks" : "gate checks that did not pass";
  t.header = {"outcome", "metric", "runs", "detail"};
  for (const GateCase& c : r.cases) {
    if (!all && c.outcome == GateOutcome::kPass) continue;
    t.rows.push_back(
        {std::string(gate_outcome_name(c.outcome)), c.metric, c.group, gate_message(c)});
  }
  return t;
}

std::string finding_message(const GateCase& c) {
  const std::string values =
      fmt::format("{} → {} ({})", format_compact(c.base_median), format_compact(c.cand_median),
                  format_change(c.delta.rel_change));
  switch (c.finding) {
    case GateFinding::kEmulatedTiming:
      return "timing measured under TCG: gates use counts unless the rule sets timings: true "
             "or icount";
    case GateFinding::kNoComparison:
      return "no comparison";
    case GateFinding::kTooFewSamples:
      return fmt::format("n={}/{}: too few samples to judge", c.delta.n_base, c.delta.n_cand);
    case GateFinding::kChangedNotEqual:
      return "changed: " + values + ", must be equal";
    case GateFinding::kUnchanged:
      return "unchanged: " + values;
    case GateFinding::kRegressed:
    case GateFinding::kChangedBeyond:
      return fmt::format("{}: {}, allowed {}",
                         c.finding == GateFinding::kRegressed ? "regressed" : "changed", values,
                         format_change(c.limit));
    case GateFinding::kInconclusive: {
      const std::string note = delta_note(c.delta);
      return "inconclusive (passes): " + values + (note.empty() ? "" : "; " + note);
    }
    case GateFinding::kWithinLimit:
      return "within limit: " + values;
    case GateFinding::kNoResolvedChange:
      return "no resolved change: " + values;
    case GateFinding::kNoMatch:
      break;
  }
  return "no compared run has this metric (" + c.selector + ")";
}

std::string rerun_message(const GateCase& c) {
  const GateRerun& r = *c.rerun;
  if (!r.completed) {
    return fmt::format("infra: the rerun could not complete after {} retr{}: {}", r.retries,
                       r.retries == 1 ? "y" : "ies", r.incomplete_why);
  }
  GateCase again = c;
  again.finding = r.finding;
  again.base_median = r.base_median;
  again.cand_median = r.cand_median;
  again.delta = r.delta;
  return fmt::format("rerun {}× in fresh boots: {}", r.rounds, finding_message(again));
}

}  // namespace

Document layout_gate(const GateReport& r, bool full) {
  Document doc = layout_comparison(r.comparison, full);
  const std::vector<std::string> notes = gate_note_lines(r);
  doc.preamble.insert(doc.preamble.begin(), notes.begin(), notes.end());
  doc.preamble.insert(doc.preamble.begin(), full ? "### " + gate_summary(r) : gate_summary(r));
  TextTable cases = gate_cases_table(r, full);
  if (!cases.rows.empty()) doc.tables.insert(doc.tables.begin(), std::move(cases));
  return doc;
}

std::string gate_summary(const GateReport& r) {
  std::string more;
  for (auto [n, what] : {std::pair{r.flaky, "flaky"}, {r.known, "known"}, {r.infra, "infra"}}) {
    if (n > 0) more += fmt::format(", {} {}", n, what);
  }
  return fmt::format("gate: {} — {} passed, {} failed, {} skipped{} ({} → {})",
                     r.failed > 0  ? "FAILED"
                     : r.infra > 0 ? "INCOMPLETE"
                                   : "PASSED",
                     r.passed, r.failed, r.skipped, more, r.comparison.base,
                     r.comparison.candidate);
}

std::string gate_message(const GateCase& c) {
  std::string m = finding_message(c);
  if (c.rerun) m += "; " + rerun_message(c);
  if (c.outcome == GateOutcome::kKnown) {
    m = fmt::format("known issue {} ({}): {}", c.known_id, c.known_url, m);
  }
  return m;
}

std::vector<std::string> gate_note_lines(const GateReport& r) {
  std::vector<std::string> lines;
  for (const GateCase& c : r.cases) {
    if (c.outcome != GateOutcome::kFlaky && c.outcome != GateOutcome::kKnown &&
        c.outcome != GateOutcome::kInfra) {
      continue;
    }
    lines.push_back(fmt::format("{}: {} · {} ({}): {}", gate_outcome_name(c.outcome), c.group,
                                c.metric, c.rule, gate_message(c)));
  }
  for (const KnownIssueNote& n : r.known_notes) {
    lines.push_back(n.expired ? fmt::format("known issue {} expired on {}: it suppresses nothing; "
                                            "review it ({})",
                                            n.id, n.expires, n.url)
                              : fmt::format("known issue {}: fixed? none of its cases fails "
                                            "(expires {}; {})",
                                            n.id, n.expires, n.url));
  }
  return lines;
}

}  // namespace foliolab
