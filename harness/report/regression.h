// A regression report (analysis/regression.h) as text that fits a mail at 100 columns, as
// Markdown and as JSON (report.json, schema kRegressionSchema): the headline (metric, change
// with its interval and verdict, culprit, cell, machine), the parent-vs-culprit table of every
// row that moved (n, mean ±%sd, change, verdict per column), the kernel evidence apart, what
// did not move (a count), the other gate cases of the same change, the kernels' config
// difference, and how to reproduce it.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "analysis/regression.h"
#include "report/document.h"
#include "report/render.h"

namespace foliolab {

Document layout_regression(const RegressionReport& r);
// "faults +1500 % [+1490 %, +1510 %] (regressed) on patch 5 of 7 (…)".
std::string regression_headline(const RegressionReport& r);
nlohmann::json regression_json(const RegressionReport& r);
// Text, Markdown or JSON (CSV: the JSON).
void render_regression(const RegressionReport& r, Format format, std::ostream& out);

}  // namespace foliolab
