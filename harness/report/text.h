// The text renderer: every model as aligned tables that fit 100 columns.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "analysis/history.h"
#include "report/document.h"

namespace foliolab {

inline constexpr size_t kTextWidth = 100;

// Columns padded to their widest cell (numbers right-aligned); a table wider than `width` is
// split into chunks of columns, each repeating the key columns; the notes become one
// "warning: a; b; c" line wrapped at `width`.
void render_text(const Document& doc, std::ostream& out, size_t width = kTextWidth);

// Metrics as rows, variants as columns (medians), change columns against the first variant;
// `extra` lines (expectations, failures) follow the tables.
void write_text(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out);
// A verdict line, the cases that did not pass, then the comparison.
void write_text(const GateReport& report, std::ostream& out);
void write_text(const HistoryModel& model, std::ostream& out);

}  // namespace foliolab
