// One metric of a comparison group: its statistics per variant and its change against the first
// variant with a verdict (analysis/comparison.h builds them; analysis/evidence.h ranks those of
// kernel evidence).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/verdict.h"
#include "model/metric_kind.h"

namespace foliolab {

struct MetricRow {
  std::string metric;
  MetricInfo info;
  bool emulated = false;  // a timing measured under TCG
  bool icount = false;    // emulated, and instruction-time: every run under machine.timing icount
  bool evidence = false;  // kernel evidence: shown in the evidence section (analysis/evidence.h)
  std::vector<SampleStats> stats;            // per variant
  std::vector<std::optional<Delta>> deltas;  // per variant; [0] is always empty
};

}  // namespace foliolab
