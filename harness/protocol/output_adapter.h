// How the host reads a workload's stdout (`custom` params `output:`). Built-in workloads and
// the default speak foliolab: exactly one JSON metrics line, then FOLIOLAB-WORKLOAD-OK as the
// last line. Programs that do not can be read as TAP 13/14, with per-metric regular
// expressions, or by their exit status alone. The `kselftest-mm` workload's runner frames each
// mm selftest's output; `kselftest` reads those blocks (TAP, or khugepaged's colored OK/Fail
// lines) into one result per test. Pure functions over untrusted text: bounded, no
// exceptions, never a crash on garbage. Each format's parser has its own file (json_output.h,
// tap.h, regex_output.h, kselftest_output.h); this one picks the parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/experiment.h"
#include "protocol/workload_output.h"

namespace foliolab {

enum class OutputFormat { kFoliolab, kTap, kRegex, kExitStatus, kKselftest };
// "foliolab", "tap", "regex", "exit-status", "kselftest" (the last only for kselftest-mm)
std::string_view output_format_name(OutputFormat f);
std::optional<OutputFormat> parse_output_format(std::string_view name);

struct OutputAdapter {
  OutputFormat format = OutputFormat::kFoliolab;
  KeyValues patterns;    // kRegex: metric name -> ECMAScript pattern with one capture group
  KeyValues aggregates;  // kRegex: metric name -> first|last|sum|min|max|count (absent: last)
};

// From a workload's `params.output` and `metrics:` patterns (built-ins: kFoliolab;
// kselftest-mm: kKselftest).
OutputAdapter output_adapter_for(const WorkloadSpec& w);

WorkloadOutput parse_workload_output(std::string_view text, const OutputAdapter& adapter);

// Why a repetition failed, "" when it succeeded: every format needs no signal; foliolab, regex,
// exit-status and kselftest need exit status 0; TAP ignores the exit status (failing tests are
// results) but fails on a bail-out or a plan mismatch; foliolab and kselftest need the marker
// and no FAIL marker. A selftest that fails, crashes or times out is a result, not a failure.
std::string workload_failure(OutputFormat format, const WorkloadOutput& out, int64_t exit_status,
                             int64_t signal);

}  // namespace foliolab
