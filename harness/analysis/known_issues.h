// `gate --known-issues FILE`, the matching: an unexpired entry turns a failing case it covers
// (its selector takes the case's group, its metric is the case's, the failure is the effect it
// expects) into kKnown; an entry none of whose cases fails any more is noted "fixed?"; an
// expired entry suppresses nothing and is noted. Today is given (no test reads the clock).
#pragma once

#include <chrono>
#include <vector>

#include "analysis/gate.h"
#include "model/known_issue.h"

namespace foliolab {

// Whether a failing (kFail or kFlaky) case is the failure the entry expects: `flaky` any
// failure; `regressed: <= X%` a metric that moved by at most X; `value: N` a candidate median
// of N (within the delta's practical threshold).
bool known_effect_matches(const KnownIssue& issue, const GateCase& c);

bool known_issue_expired(const KnownIssue& issue, std::chrono::year_month_day today);

// Applies the entries to the report (outcomes, known_notes) and recounts it.
void apply_known_issues(GateReport& report, const std::vector<KnownIssue>& issues,
                        std::chrono::year_month_day today);

}  // namespace foliolab
