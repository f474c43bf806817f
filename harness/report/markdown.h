// The Markdown renderer: every model as pipe tables, one row per metric and variant with every
// statistic.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "analysis/history.h"
#include "report/document.h"

namespace foliolab {

void render_markdown(const Document& doc, std::ostream& out);

void write_markdown(const ComparisonModel& model, const std::vector<std::string>& extra,
                    std::ostream& out);
// A "###" verdict line, every case, then the comparison.
void write_markdown(const GateReport& report, std::ostream& out);
void write_markdown(const HistoryModel& model, std::ostream& out);

}  // namespace foliolab
