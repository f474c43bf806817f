// The HTML report's kernel evidence (report/html.h): the page data of a group's evidence, its
// tables as report/evidence_layout.h lays them out and each distribution's histogram with its
// labels written here, and the script that draws them (SVG, no external assets).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/comparison.h"

namespace foliolab {

nlohmann::json evidence_page_data(const ComparisonGroup& g);
// Function declarations only (drawEvidence(parent, group)), appended to the page's script.
const char* evidence_script();

}  // namespace foliolab
