#include "report/text.h"

#include <algorithm>

#include "report/comparison_layout.h"
#include "report/gate_layout.h"
#include "report/history_layout.h"
#include "util/text.h"

namespace foliolab {
namespace {

bool numeric(const std::string& s) {
  if (s.empty()) return false;
  const unsigned char c = static_cast<unsigned char>(s[0]);
  return (c >= '0' && c <= '9') || ((c == '-' || c == '+') && s.size() > 1);
}

std::string pad(const std::string& s, size_t w, bool right) {
  const std::string fill(w - std::min(w, display_width(s)), ' ');
  return right ? fill + s : s + fill;
}

void render_chunk(const TextTable& t, const std::vector<size_t>& cols,
                  const std::vector<size_t>& widths, std::ostream& out) {
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string s;
    for (size_t i = 0; i < cols.size(); ++i) {
      const size_t c = cols[i];
      const std::string cell = c < cells.size() ? cells[c] : "";
      const bool right = !header && c >= t.key_columns && numeric(cell);
      const bool last = i + 1 == cols.size();
      s += last && !right ? cell : pad(cell, widths[c], right || (header && c >= t.key_columns));
      if (!last) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  };
  line(t.header, true);
  for (const auto& row : t.rows) line(row, false);
}

}  // namespace

void render_text(const Document& doc, std::ostream& out, size_t width) {
  for (const std::string& l : doc.preamble) {
    for (const std::string& w : word_wrap(l, width, 2)) out << w << "\n";
  }
  for (const TextTable& t : doc.tables) {
    if (!t.title.empty()) {
      for (const std::string& w : word_wrap(t.title, width, 2)) out << w << "\n";
    }
    std::vector<size_t> widths(t.header.size(), 0);
    for (size_t c = 0; c < t.header.size(); ++c) widths[c] = display_width(t.header[c]);
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
        widths[c] = std::max(widths[c], display_width(row[c]));
      }
    }
    // Greedy chunks of columns: the key columns, then as many others as fit.
    const size_t keys = std::min(t.key_columns, t.header.size());
    size_t key_width = 0;
    for (size_t c = 0; c < keys; ++c) key_width += widths[c] + 2;
    size_t c = keys;
    do {
      std::vector<size_t> cols;
      for (size_t k = 0; k < keys; ++k) cols.push_back(k);
      size_t used = key_width;
      while (c < t.header.size() && (cols.size() == keys || used + widths[c] <= width)) {
        cols.push_back(c);
        used += widths[c] + 2;
        ++c;
      }
      render_chunk(t, cols, widths, out);
    } while (c < t.header.size());
    if (!t.notes.empty()) {
      for (const std::string& w : word_wrap("warning: " + join(t.notes, "; "), width, 2)) {
        out << w << "\n";
      }
    }
    out << "\n";
  }
  for (const std::string& l : doc.epilogue) {
    for (const std::string& w : word_wrap(l, width, 6)) out << w << "\n";
  }
}

void write_text(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out) {
  Document doc = layout_comparison(model, /*full=*/false);
  doc.epilogue.insert(doc.epilogue.end(), extra.begin(), extra.end());
  render_text(doc, out);
}

void write_text(const GateReport& report, std::ostream& out) {
  render_text(layout_gate(report, /*full=*/false), out);
}

void write_text(const HistoryModel& model, std::ostream& out) {
  render_text(layout_history(model), out);
}

}  // namespace foliolab
