// How the host reads a workload's stdout (`custom` params `output:`). Built-in workloads and
// the default speak foliolab: exactly one JSON metrics line, then FOLIOLAB-WORKLOAD-OK as the
// last line. Programs that do not can be read as TAP 13/14, with per-metric regular
// expressions, or by their exit status alone. The `kselftest-mm` workload's runner frames each
// mm selftest's output; `kselftest` reads those blocks (TAP, or khugepaged's colored OK/Fail
// lines) into one result per test. Pure functions over untrusted text: bounded, no
// exceptions, never a crash on garbage.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"
#include "model/subtest_outcome.h"

namespace foliolab {

enum class OutputFormat { kFoliolab, kTap, kRegex, kExitStatus, kKselftest };
// "foliolab", "tap", "regex", "exit-status", "kselftest" (the last only for kselftest-mm)
std::string_view output_format_name(OutputFormat f);
std::optional<OutputFormat> parse_output_format(std::string_view name);

struct OutputAdapter {
  OutputFormat format = OutputFormat::kFoliolab;
  KeyValues patterns;  // kRegex: metric name -> ECMAScript pattern with one capture group
};

// From a workload's `params.output` and `metrics:` patterns (built-ins: kFoliolab;
// kselftest-mm: kKselftest).
OutputAdapter output_adapter_for(const WorkloadSpec& w);

inline constexpr size_t kMaxTests = 10000;        // TAP lines kept per repetition
inline constexpr size_t kMaxRegexLine = 1024;     // bytes of a line a pattern is matched against
inline constexpr std::string_view kWorkloadOk = "FOLIOLAB-WORKLOAD-OK";
inline constexpr std::string_view kWorkloadFail = "FOLIOLAB-WORKLOAD-FAIL";

struct WorkloadOutput {
  std::map<std::string, double> metrics;
  bool ok_marker = false;    // foliolab: the single marker was the last line
  bool fail_marker = false;  // FOLIOLAB-WORKLOAD-FAIL <reason> (any format)
  std::string fail_reason;
  std::vector<SubtestOutcome> tests;  // TAP
  bool bailed_out = false;         // TAP "Bail out!"
  std::string bail_reason;
  // Why the output breaks its format's contract ("" = it does not): two metric lines, output
  // after the marker, a TAP plan that does not match, a pattern that matched nothing, ...
  std::string violation;
  std::vector<std::string> problems;  // notes that do not fail the run on their own
};

WorkloadOutput parse_workload_output(std::string_view text, const OutputAdapter& adapter);

// Why a repetition failed, "" when it succeeded: every format needs no signal; foliolab, regex,
// exit-status and kselftest need exit status 0; TAP ignores the exit status (failing tests are
// results) but fails on a bail-out or a plan mismatch; foliolab and kselftest need the marker
// and no FAIL marker. A selftest that fails, crashes or times out is a result, not a failure.
std::string workload_failure(OutputFormat format, const WorkloadOutput& out,
                             int64_t exit_status, int64_t signal);

}  // namespace foliolab
