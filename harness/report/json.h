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

// `extra` lines (expectations, failures) go into the document as "extra".
void write_json(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out);
void write_json(const GateReport& report, std::ostream& out);
void write_json(const HistoryModel& model, std::ostream& out);

}  // namespace foliolab
