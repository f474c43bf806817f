// A known-issues file (`gate --known-issues FILE`): reviewed entries naming a failure the gate
// is to expect until a date, read with the experiment loader's selectors and error style
// (file:line:col, did-you-mean). See experiments/examples/known-issues.yaml.
//
//   known_issues:
//     - id: mm-4711                      # unique
//       runs: {arch: arm64, knobs: 64K}  # a gate rule's selector (kernel, arch, knobs, workload)
//       metric: faults
//       regressed: <= 8%                 # or `value: 16384`, or `flaky: true`
//       url: https://lore.kernel.org/linux-mm/...
//       expires: 2027-01-31              # required; after it the entry suppresses nothing
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

enum class KnownEffect {
  kRegressed,  // a regression of at most `amount` (relative: 0.08 = 8 %)
  kValue,      // the candidate's median is `amount`
  kFlaky,      // any failure of the case, rerun or not
};

struct KnownIssue {
  std::string id;
  RunSelector runs;
  std::string metric;
  KnownEffect effect = KnownEffect::kFlaky;
  double amount = 0;
  std::string url;
  std::chrono::year_month_day expires;
  std::string expires_text;  // as written, YYYY-MM-DD
  SourceLoc loc;
  SourceLoc metric_loc;  // of the `metric:` value
};

// Reads and parses a known-issues file; locations name it as `path` is spelt.
Result<std::vector<KnownIssue>> load_known_issues(const std::string& path);
Result<std::vector<KnownIssue>> parse_known_issues(const std::string& yaml_text,
                                                   const std::string& file_name);

// "2027-01-31" as a calendar date; nullopt for anything else (2027-02-30, 2027-1-31).
std::optional<std::chrono::year_month_day> parse_iso_date(std::string_view text);

}  // namespace foliolab
