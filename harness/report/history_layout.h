// A metric's history -> its document: a table per series and the change points found in it.
#pragma once

#include <string>
#include <vector>

#include "analysis/history.h"
#include "report/document.h"

namespace foliolab {

Document layout_history(const HistoryModel& model);

// The history's change points: the rule's line ("change points: 2 in 1 of 3 series (…)"), a
// table's header and a change point's cells (last before, first after, before, after,
// sessions, change, p).
std::string change_point_summary(const HistoryModel& model);
std::vector<std::string> change_point_header();
std::vector<std::string> change_point_cells(const HistorySeries& series, const ChangePoint& c);

}  // namespace foliolab
