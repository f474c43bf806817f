// The regex output format: one ECMAScript pattern per metric, with one capture group; the last
// line a pattern matches gives its metric, and the capture must be a number.
#pragma once

#include <string_view>

#include "model/experiment.h"
#include "protocol/workload_output.h"

namespace foliolab {

// `patterns`: metric name -> pattern.
void parse_regex_output(std::string_view text, const KeyValues& patterns, WorkloadOutput& out);

}  // namespace foliolab
