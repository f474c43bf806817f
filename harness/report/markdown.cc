#include "report/markdown.h"

#include "report/comparison_layout.h"
#include "report/gate_layout.h"
#include "report/history_layout.h"

namespace foliolab {

namespace {
std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}
}  // namespace

void render_markdown(const Document& doc, std::ostream& out) {
  for (const std::string& l : doc.preamble) out << l << "\n\n";
  for (const TextTable& t : doc.tables) {
    if (!t.title.empty()) out << "#### " << t.title << "\n\n";
    out << "|";
    for (const auto& h : t.header) out << " " << md_cell(h) << " |";
    out << "\n|";
    for (size_t c = 0; c < t.header.size(); ++c) out << (c < t.key_columns ? "---|" : "---:|");
    out << "\n";
    for (const auto& row : t.rows) {
      out << "|";
      for (size_t c = 0; c < t.header.size(); ++c) {
        out << " " << md_cell(c < row.size() ? row[c] : "") << " |";
      }
      out << "\n";
    }
    if (!t.notes.empty()) {
      out << "\n";
      for (const auto& n : t.notes) out << "- ⚠ " << n << "\n";
    }
    out << "\n";
  }
  for (const std::string& l : doc.epilogue) out << l << "\n";
}

void write_markdown(const ComparisonModel& model, const std::vector<std::string>& extra,
                    std::ostream& out) {
  Document doc = layout_comparison(model, /*full=*/true);
  doc.epilogue.insert(doc.epilogue.end(), extra.begin(), extra.end());
  render_markdown(doc, out);
}

void write_markdown(const GateReport& report, std::ostream& out) {
  render_markdown(layout_gate(report, /*full=*/true), out);
}

void write_markdown(const HistoryModel& model, std::ostream& out) {
  render_markdown(layout_history(model), out);
}

}  // namespace foliolab
