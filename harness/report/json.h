// The JSON renderer: every model schema-versioned (kComparisonSchema, kGateSchema,
// kHistorySchema), NaN as null, indented by 2.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "analysis/history.h"

namespace foliolab {

nlohmann::json number_json(double x);  // null for NaN
nlohmann::json comparison_json(const ComparisonModel& model);
nlohmann::json history_json(const HistoryModel& model);
// The gate's outcome without its comparison; `foliolab gate` also writes it to the candidate
// session as gate.json (for the index to store its cases and known-issue matches). Fields:
// schema (kGateSchema), ok, baseline and candidate (what was compared), passed / failed /
// skipped / flaky / infra / known (case counts), cases[] {rule, group, metric, outcome ("pass",
// "FAIL", "skip", "flaky", "INFRA", "known"), message, kernel / arch / knobs / workload (the
// group's identity, "" where it varies), rel_change (null when none), known_issue? {id, url},
// rerun? {rounds, retries, completed, outcome (of the reruns alone), sessions[]}},
// known_issue_notes[] {id, url, expires, state: "fixed?" (none of its cases fails) | "expired" (it
// suppressed nothing)}.
nlohmann::json gate_json(const GateReport& report);

// `extra` lines (expectations, failures) go into the document as "extra".
void write_json(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out);
void write_json(const GateReport& report, std::ostream& out);
void write_json(const HistoryModel& model, std::ostream& out);

}  // namespace foliolab
