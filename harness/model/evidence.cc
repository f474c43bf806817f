#include "model/evidence.h"

#include <algorithm>

namespace foliolab {
namespace {

bool all_of(const std::string& s, bool dot) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (dot && c == '.');
  });
}

}  // namespace

bool is_trace_word(const std::string& name) { return all_of(name, false); }

bool is_function_name(const std::string& name) { return all_of(name, true) && name[0] != '.'; }

}  // namespace foliolab
