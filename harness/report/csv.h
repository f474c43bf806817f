// The CSV renderer (RFC 4180, CRLF line ends): one flat table per model; numbers in full
// precision, empty for NaN.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "analysis/history.h"

namespace foliolab {

// Fields with a comma, quote or newline are quoted, quotes doubled.
void render_csv(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows, std::ostream& out);

void write_csv(const ComparisonModel& model, std::ostream& out);  // group × metric × variant
void write_csv(const GateReport& report, std::ostream& out);      // one row per case
void write_csv(const HistoryModel& model, std::ostream& out);     // series × session

}  // namespace foliolab
