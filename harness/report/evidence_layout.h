// A comparison group's kernel evidence (analysis/evidence.h) as format-neutral tables, shared by
// the text and Markdown renderers: the evidence rows ranked by size of change, each
// distribution's pooled quantiles per variant, and the census side by side.
#pragma once

#include <vector>

#include "analysis/comparison.h"
#include "report/document.h"

namespace foliolab {

// No table when the group has no evidence.
std::vector<TextTable> evidence_tables(const ComparisonGroup& g);

}  // namespace foliolab
