#include "report/render.h"

#include <sstream>

#include "report/csv.h"
#include "report/json.h"
#include "report/markdown.h"
#include "report/session_layout.h"
#include "report/text.h"

namespace foliolab {

bool parse_format(std::string_view text, Format* out) {
  if (text == "text") {
    *out = Format::kText;
  } else if (text == "markdown" || text == "md") {
    *out = Format::kMarkdown;
  } else if (text == "csv") {
    *out = Format::kCsv;
  } else if (text == "json") {
    *out = Format::kJson;
  } else {
    return false;
  }
  return true;
}

void render_comparison(const ComparisonModel& model, Format format, std::ostream& out,
                       const std::vector<std::string>& extra) {
  switch (format) {
    case Format::kText:
      return write_text(model, extra, out);
    case Format::kMarkdown:
      return write_markdown(model, extra, out);
    case Format::kCsv:
      return write_csv(model, out);
    case Format::kJson:
      return write_json(model, extra, out);
  }
}

void render_gate(const GateReport& report, Format format, std::ostream& out) {
  switch (format) {
    case Format::kText:
      return write_text(report, out);
    case Format::kMarkdown:
      return write_markdown(report, out);
    case Format::kCsv:
      return write_csv(report, out);
    case Format::kJson:
      return write_json(report, out);
  }
}

void render_history(const HistoryModel& model, Format format, std::ostream& out) {
  switch (format) {
    case Format::kText:
      return write_text(model, out);
    case Format::kMarkdown:
      return write_markdown(model, out);
    case Format::kCsv:
      return write_csv(model, out);
    case Format::kJson:
      return write_json(model, out);
  }
}

void render_session(const SessionReport& report, Format format, std::ostream& out) {
  render_comparison(report.model, format, out, session_extra_lines(report));
}

std::string session_text(const SessionReport& report) {
  std::ostringstream out;
  render_session(report, Format::kText, out);
  return out.str();
}

}  // namespace foliolab
