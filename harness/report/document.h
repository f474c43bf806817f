// A format-neutral document: titled tables with a folded warning line. report/*_layout.h turn
// the comparison, gate and history models into documents; report/text.h and report/markdown.h
// write them to a stream.
#pragma once

#include <cstddef>
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

}  // namespace foliolab
