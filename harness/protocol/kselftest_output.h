// The `kselftest` output format, kselftest-mm's own: workloads/kselftest-mm.c frames each mm
// selftest's output ("@kselftest begin <program>", "| " body lines, "@kselftest end <program>
// exit=.. signal=.. timeout=.. wall_ms=.. truncated=.."); each block (TAP, or khugepaged's
// colored OK/Fail lines) becomes results named "<program>: <test>".
#pragma once

#include <string_view>

#include "protocol/workload_output.h"

namespace foliolab {

void parse_kselftest_output(std::string_view text, WorkloadOutput& out);

}  // namespace foliolab
