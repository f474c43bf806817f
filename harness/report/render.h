// The one dispatch by format: `--format text|markdown|csv|json` picks the renderer
// (report/text.h, markdown.h, csv.h, json.h) for each model. JUnit (report/junit.h) and HTML
// (report/html.h) are written to files of their own, not chosen by --format.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "analysis/history.h"
#include "analysis/session_report.h"

namespace foliolab {

enum class Format { kText, kMarkdown, kCsv, kJson };
// "text", "markdown" (or "md"), "csv", "json".
bool parse_format(std::string_view text, Format* out);

// `extra` lines (expectations, failures) follow the tables in text and Markdown and go into
// the JSON as "extra"; CSV has no place for them.
void render_comparison(const ComparisonModel& model, Format format, std::ostream& out,
                       const std::vector<std::string>& extra = {});
void render_gate(const GateReport& report, Format format, std::ostream& out);
void render_history(const HistoryModel& model, Format format, std::ostream& out);
// The comparison of a session report with its tests, expectations and failures.
void render_session(const SessionReport& report, Format format, std::ostream& out);
std::string session_text(const SessionReport& report);  // render_session in text

}  // namespace foliolab
