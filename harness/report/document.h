// A rendered-format-neutral document: titled tables with a folded warning line. Layout
// functions (analysis/layout.h) turn the comparison, gate and history models into documents;
// the text and Markdown renderers here write them to a stream. CSV is a single flat table.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace foliolab {

struct TextTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t key_columns = 1;  // repeated in every chunk when the table is split to fit the width
  std::vector<std::string> notes;  // folded into one "warning:" line
};

struct Document {
  std::vector<std::string> preamble;  // lines before the tables
  std::vector<TextTable> tables;
  std::vector<std::string> epilogue;  // lines after the tables
};

inline constexpr size_t kTextWidth = 100;

// Columns padded to their widest cell (numbers right-aligned); a table wider than `width` is
// split into chunks of columns, each repeating the key columns; the notes become one
// "warning: a; b; c" line wrapped at `width`.
void render_text(const Document& doc, std::ostream& out, size_t width = kTextWidth);
void render_markdown(const Document& doc, std::ostream& out);

// RFC 4180: fields with a comma, quote or newline are quoted, quotes doubled.
void render_csv(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows, std::ostream& out);

// Display width of UTF-8 text (code points; the tables use "±", "×", "†", "…").
size_t display_width(std::string_view s);

}  // namespace foliolab
