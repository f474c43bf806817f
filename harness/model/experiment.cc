#include "model/experiment.h"

namespace foliolab {

std::string SourceLoc::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace foliolab
