// A comparison model -> a format-neutral document, shared by the text and Markdown renderers.
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "report/document.h"

namespace foliolab {

// Compact (text): metrics as rows, variants as columns (medians), change columns against the
// first variant; full (Markdown): one row per metric and variant with every statistic.
Document layout_comparison(const ComparisonModel& model, bool full);

// The group's warnings, then "<metrics>: <note>", one line per distinct metric note.
std::vector<std::string> group_warnings(const ComparisonGroup& g);

}  // namespace foliolab
