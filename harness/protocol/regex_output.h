// The regex output format: one ECMAScript pattern per metric, with one capture group. By
// default the last line a pattern matches gives its metric; an aggregate combines the captures
// of every matching line instead (first, last, sum, min, max, or count: the number of matching
// lines, 0 when none matches), or keeps them all as a distribution metric (`distribution`:
// WorkloadOutput::distributions, read as <name>.p50, .p90, .p99, .max, .count). Every capture
// that is combined must be a number.
#pragma once

#include <string_view>

#include "model/experiment.h"
#include "protocol/workload_output.h"

namespace foliolab {

// `patterns`: metric name -> pattern; `aggregates`: metric name -> aggregate (absent: last).
void parse_regex_output(std::string_view text, const KeyValues& patterns,
                        const KeyValues& aggregates, WorkloadOutput& out);

}  // namespace foliolab
