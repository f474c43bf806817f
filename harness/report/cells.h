// The cell texts every renderer shares: a metric's label, mean ± sd, a change with its interval,
// the p column and a change's note. All number formatting goes through report/number_format.
#pragma once

#include <string>

#include "analysis/comparison.h"

namespace foliolab {

std::string metric_label(const MetricRow& row);   // "sys_s†" for an emulated timing
std::string stats_mean_sd(const SampleStats& s);  // "1,025 ± 0.5"
std::string mean_ci_cell(const SampleStats& s);   // "1,020 … 1,030", "n/a"
std::string delta_text(const Delta& d);           // "-93.7 % [-93.8 %, -93.6 %]"
std::string ci_text(const Delta& d);              // "-93.8 % … -93.6 %", "n/a"
std::string delta_note(const Delta& d);           // "baseline mean is zero: no ratio"; "" for none
// The p column: "exact" for a count whose sides are constant and apart (no p-value applies).
std::string p_cell(const Delta& d, double p);

}  // namespace foliolab
