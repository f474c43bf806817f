// TAP 13 and 14 output: "1..N" plan, "ok N - name # SKIP why" / "not ok N name # TODO later"
// lines, "Bail out!"; YAML diagnostics and indented subtests belong to their parent and are
// skipped. The test lines become `tests` and the tap.pass/tap.fail/tap.skip metrics.
#pragma once

#include <string_view>

#include "protocol/workload_output.h"

namespace foliolab {

void parse_tap(std::string_view text, WorkloadOutput& out);

}  // namespace foliolab
