// Renderers of the comparison model (session report and `compare`): text (fits 100 columns),
// Markdown, CSV (one row per group × metric × variant) and JSON (schema-versioned).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/comparison.h"
#include "report/document.h"

namespace foliolab {

enum class Format { kText, kMarkdown, kCsv, kJson };
// "text", "markdown" (or "md"), "csv", "json".
bool parse_format(std::string_view text, Format* out);

// Text: metrics as rows, variants as columns (medians), change columns against the first
// variant; Markdown: one row per metric and variant with every statistic.
Document layout_comparison(const ComparisonModel& model, bool full);
nlohmann::json comparison_json(const ComparisonModel& model);
void comparison_csv(const ComparisonModel& model, std::ostream& out);

// Writes the model in `format`; `extra` lines (expectations, failures) follow the tables in
// text and Markdown, and go into the JSON as "extra".
void render_comparison(const ComparisonModel& model, Format format, std::ostream& out,
                       const std::vector<std::string>& extra = {});

// Shared cell texts.
std::string metric_label(const MetricRow& row);  // "sys_s†" for an emulated timing
std::string stats_mean_sd(const SampleStats& s);  // "1,025 ± 0.5"
std::string delta_text(const Delta& d);           // "-93.7 % [-93.8 %, -93.6 %]"
nlohmann::json number_json(double x);             // null for NaN

}  // namespace foliolab
