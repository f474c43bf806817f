#include "analysis/known_issues.h"

#include <algorithm>
#include <cmath>

namespace foliolab {

bool known_effect_matches(const KnownIssue& issue, const GateCase& c) {
  if (c.outcome != GateOutcome::kFail && c.outcome != GateOutcome::kFlaky) return false;
  switch (issue.effect) {
    case KnownEffect::kFlaky:
      return true;
    case KnownEffect::kRegressed:
      return (c.finding == GateFinding::kRegressed || c.finding == GateFinding::kChangedBeyond ||
              c.finding == GateFinding::kChangedNotEqual) &&
             std::isfinite(c.delta.rel_change) && std::fabs(c.delta.rel_change) <= issue.amount;
    case KnownEffect::kValue:
      break;
  }
  const double slack = std::max(c.delta.threshold, 1e-9 * std::fabs(issue.amount));
  return std::isfinite(c.cand_median) && std::fabs(c.cand_median - issue.amount) <= slack;
}

bool known_issue_expired(const KnownIssue& issue, std::chrono::year_month_day today) {
  return std::chrono::sys_days(today) > std::chrono::sys_days(issue.expires);
}

void apply_known_issues(GateReport& report, const std::vector<KnownIssue>& issues,
                        std::chrono::year_month_day today) {
  for (const KnownIssue& issue : issues) {
    const KnownIssueNote note{.id = issue.id, .url = issue.url, .expires = issue.expires_text};
    if (known_issue_expired(issue, today)) {
      report.known_notes.push_back(note);
      report.known_notes.back().expired = true;
      continue;
    }
    bool failing = false;
    for (GateCase& c : report.cases) {
      if (c.group_index < 0 || c.metric != issue.metric) continue;
      const auto& g = report.comparison.groups[static_cast<size_t>(c.group_index)];
      if (!gate_selects(issue.runs, g)) continue;
      failing = failing || c.outcome == GateOutcome::kFail || c.outcome == GateOutcome::kFlaky ||
                (c.outcome == GateOutcome::kKnown && c.known_id == issue.id);
      if (!known_effect_matches(issue, c)) continue;
      c.outcome = GateOutcome::kKnown;
      c.known_id = issue.id;
      c.known_url = issue.url;
      c.known_expires = issue.expires_text;
    }
    if (!failing) report.known_notes.push_back(note);
  }
  count_outcomes(report);
}

}  // namespace foliolab
