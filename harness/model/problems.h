// Collects located problems, one per line ("file:line:col: key.path: message"), so that a
// check reports everything it found at once.
#pragma once

#include <string>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

class Problems {
 public:
  void add(const SourceLoc& at, const std::string& path, const std::string& message) {
    text_ += (text_.empty() ? "" : "\n") + at.str() + ": " + path + ": " + message;
  }
  Result<void> status() const { return text_.empty() ? Result<void>() : make_error(text_); }

 private:
  std::string text_;
};

}  // namespace foliolab
