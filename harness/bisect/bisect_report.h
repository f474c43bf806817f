// The regression report of a bisection that named one patch or commit and confirmed it (issue
// 57): the confirmation's fresh boots of parent and culprit compared on every metric, counter
// and kernel-evidence row of the cell (analysis/regression.h), the kernels' config difference,
// and the cell pinned to the two kernels in a reproduce folder beside it (bisect/reproduce.h).
// `foliolab try` adds columns to it: the culprit (and the tip) with a fix applied.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/regression.h"
#include "bisect/bisect_candidates.h"
#include "bisect/bisect_outcome.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct BisectReportSpec {
  const BisectCandidates* candidates = nullptr;
  const BisectOutcome* outcome = nullptr;
  std::string metric;
  std::filesystem::path series_dir;  // --series: the series' folder (its patches are copied)
  std::filesystem::path scratch;     // where an mbox series is split
  std::filesystem::path cache;       // the kernels' configs: <cache>/kernels/<build id>/config
  std::filesystem::path dir;         // the bisection's folder: reproduce/ goes there
  ProcessRunner* runner = nullptr;
};

// nullopt when no exact culprit was confirmed (a bisection without an answer has no report),
// and for a knob-set bisection (no patch or commit: its columns would be one kernel's).
Result<std::optional<RegressionReport>> bisection_report(const BisectReportSpec& spec);

// The columns of a session's records, one per kernel name, labelled, for a report: the runs of
// each kernel pooled; `first` gets a record of the first column.
GroupRuns kernel_columns(const std::vector<RunRecord>& records,
                         const std::vector<std::pair<std::string, std::string>>& label_kernel,
                         const RunRecord** first);

// "CONFIG_X: y → n" lines between two cached kernels ("" ids or a missing config: none).
std::vector<std::string> kernel_config_difference(const std::filesystem::path& cache,
                                                  const std::string& a, const std::string& b);

}  // namespace foliolab
