// How many reps a run does and which metrics decide it (issue 18, adaptive repetitions). A run
// watches every timing metric named by a `gate:` rule that applies to it, then its workload's
// primary timing metrics (FL_PRIMARY in workloads/*.def; `primary: true` on a custom
// workload's metric). Counts never need more reps. A workload the agent cannot read metrics
// from (a custom program whose output is not foliolab's JSON line) watches none; a run that
// watches none does `min` reps.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/experiment.h"

namespace foliolab {

struct RepeatPlan {
  int min = 0;  // Experiment::repeat
  int max = 0;  // == min when fixed
  int warmup = 0;
  std::optional<double> ci;          // the experiment's target (adaptive)
  std::vector<std::string> metrics;  // watched, gate rules' first, without repeats
  bool adaptive() const { return ci.has_value() && !metrics.empty(); }
};

RepeatPlan repeat_plan(const Experiment& exp, const Run& run);

// `plan`'s line about repetitions: "" for a plain count without warm-up, else e.g.
// "repeat: adaptive, 3..30 reps per run until the 95 % CI half-width of the mean is within
// ±2 % for fault: cpu_s; zero-page watches no timing metric and does 3\n".
std::string format_repeat_plan(const Experiment& exp, const std::vector<Run>& runs);

}  // namespace foliolab
