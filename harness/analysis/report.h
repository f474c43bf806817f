// The session report printed after `foliolab run` and by `foliolab report`: one comparison
// table per (kernel, arch, workload) with a row per knob set, a counter table (deltas per rep),
// an "expectations:" section (held / NOT HELD per `expect:` item, with a line per run), and the
// list of runs that failed.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/experiment.h"

namespace foliolab {

struct SessionReport {
  std::string text;
  int runs_failed = 0;
  int expectations_failed = 0;
  int expectations_held = 0;
};

SessionReport build_session_report(const Experiment& exp, const std::vector<nlohmann::json>& records);

// Metric columns shown first for a workload (the cover letters' columns for `fault`).
std::vector<std::string> headline_metrics(const std::string& workload);

}  // namespace foliolab
