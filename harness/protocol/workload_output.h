// What the host reads from one repetition of a workload's stdout, whatever its format, and the
// few helpers every format's parser (json_output.h, tap.h, regex_output.h, kselftest_output.h)
// records into it with. The text is untrusted: everything kept is bounded.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/distribution.h"
#include "model/subtest_outcome.h"

namespace foliolab {

inline constexpr size_t kMaxTests = 10000;     // TAP lines kept per repetition
inline constexpr size_t kMaxRegexLine = 1024;  // bytes of a line a pattern is matched against
inline constexpr size_t kMaxOutputName = 256;  // bytes of a metric or test name kept
inline constexpr std::string_view kWorkloadOk = "FOLIOLAB-WORKLOAD-OK";
inline constexpr std::string_view kWorkloadFail = "FOLIOLAB-WORKLOAD-FAIL";

struct WorkloadOutput {
  std::map<std::string, double> metrics;
  // Regex `aggregate: distribution` (and TAP's like it): each capture a value of one histogram.
  std::map<std::string, Distribution> distributions;
  bool ok_marker = false;    // foliolab: the single marker was the last line
  bool fail_marker = false;  // FOLIOLAB-WORKLOAD-FAIL <reason> (any format)
  std::string fail_reason;
  std::vector<SubtestOutcome> tests;  // TAP
  bool bailed_out = false;            // TAP "Bail out!"
  std::string bail_reason;
  // Why the output breaks its format's contract ("" = it does not): two metric lines, output
  // after the marker, a TAP plan that does not match, a pattern that matched nothing, ...
  std::string violation;
  std::vector<std::string> problems;  // notes that do not fail the run on their own
};

// Keeps a note that does not fail the run (the first 100 are kept).
void add_problem(WorkloadOutput& out, std::string what);
// Records why the output breaks its format's contract; the first reason wins.
void add_violation(WorkloadOutput& out, std::string what);
// True when `line` is "FOLIOLAB-WORKLOAD-FAIL" or "FOLIOLAB-WORKLOAD-FAIL <reason>": records
// the marker and the first reason.
bool read_fail_marker(std::string_view line, WorkloadOutput& out);
// Sets a metric; a value that is not finite, or a new metric past the 1024th, is noted instead.
void set_metric(WorkloadOutput& out, std::string_view name, double value);
// The "tap.pass", "tap.fail" and "tap.skip" metrics.
void set_tap_counts(WorkloadOutput& out, size_t pass, size_t fail, size_t skip);

}  // namespace foliolab
