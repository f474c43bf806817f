// The foliolab output format (built-in workloads and the default for `custom`): text lines, then
// exactly one JSON object line whose numeric fields are the metrics, then FOLIOLAB-WORKLOAD-OK
// as the last line.
#pragma once

#include <string_view>

#include "protocol/workload_output.h"

namespace foliolab {

void parse_json_output(std::string_view text, WorkloadOutput& out);

}  // namespace foliolab
