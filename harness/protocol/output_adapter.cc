#include "protocol/output_adapter.h"

#include <fmt/format.h>

#include "catalog/kselftest_catalog.h"
#include "protocol/json_output.h"
#include "protocol/kselftest_output.h"
#include "protocol/regex_output.h"
#include "protocol/tap.h"

namespace foliolab {
namespace {

constexpr std::string_view kFormats[] = {"foliolab", "tap", "regex", "exit-status", "kselftest"};
constexpr size_t kUserFormats = 4;  // `kselftest` is kselftest-mm's own, not a custom output

}  // namespace

std::string_view output_format_name(OutputFormat f) { return kFormats[static_cast<size_t>(f)]; }

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  for (size_t i = 0; i < kUserFormats; ++i) {
    if (kFormats[i] == name) return static_cast<OutputFormat>(i);
  }
  return std::nullopt;
}

OutputAdapter output_adapter_for(const WorkloadSpec& w) {
  OutputAdapter a;
  if (is_kselftest(w)) {
    a.format = OutputFormat::kKselftest;
    return a;
  }
  for (const auto& [key, value] : w.params) {
    if (key == "output") a.format = parse_output_format(value).value_or(OutputFormat::kFoliolab);
  }
  if (a.format == OutputFormat::kRegex) {
    a.patterns = w.metric_patterns;
    a.aggregates = w.metric_aggregates;
  }
  return a;
}

WorkloadOutput parse_workload_output(std::string_view text, const OutputAdapter& adapter) {
  WorkloadOutput out;
  switch (adapter.format) {
    case OutputFormat::kFoliolab:
      parse_json_output(text, out);
      break;
    case OutputFormat::kTap:
      parse_tap(text, out);
      break;
    case OutputFormat::kRegex:
      parse_regex_output(text, adapter.patterns, adapter.aggregates, out);
      break;
    case OutputFormat::kExitStatus:
      break;
    case OutputFormat::kKselftest:
      parse_kselftest_output(text, out);
      break;
  }
  return out;
}

std::string workload_failure(OutputFormat format, const WorkloadOutput& out, int64_t exit_status,
                             int64_t signal) {
  if (signal != 0) return fmt::format("killed by signal {}", signal);
  if (format == OutputFormat::kTap) {
    if (out.bailed_out) {
      return "bailed out" + (out.bail_reason.empty() ? "" : ": " + out.bail_reason);
    }
    return out.violation;
  }
  if (out.fail_marker) {
    return fmt::format("failed: {} (exit status {})",
                       out.fail_reason.empty() ? "no reason given" : out.fail_reason, exit_status);
  }
  if (exit_status != 0) return fmt::format("exited with status {}", exit_status);
  if ((format == OutputFormat::kFoliolab || format == OutputFormat::kKselftest) && !out.ok_marker) {
    return fmt::format("did not print {}", kWorkloadOk);
  }
  return out.violation;
}

}  // namespace foliolab
