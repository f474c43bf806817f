// The HTML renderer: one self-contained file (inline CSS, JavaScript and data; no network) that
// draws, with SVG built in the browser, a dot plot per metric with each variant's values and
// 95 % CI per group (arch), the per-size mTHP allocation counts, the counter deltas, the knob
// state and the provenance; and, for history, a trend plot per series with each session's CI.
// The page sets <body data-plots="N" data-marks="M"> once drawn, and data-error on a
// JavaScript error, so a headless browser can check it through the DOM.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/history.h"

namespace foliolab {

void write_html(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out);
void write_html(const HistoryModel& model, std::ostream& out);

}  // namespace foliolab
