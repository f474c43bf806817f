// Where a value came from, for error messages ("file:line:col").
#pragma once

#include <string>

namespace foliolab {

struct SourceLoc {
  std::string file;
  int line = 0;             // 1-based; 0 = unknown
  int column = 0;           // 1-based
  std::string str() const;  // model/experiment.cc
};

}  // namespace foliolab
