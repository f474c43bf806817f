// The input of one comparison group: the records of each variant (pooled when several). Below
// the comparison (analysis/comparison.h) and what it reads about the machine's state
// (analysis/machine_state.h).
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace foliolab {

// Input of a group: the records of each variant (pooled when several).
struct VariantRuns {
  std::string label;
  std::vector<const RunRecord*> runs;
  std::string session;  // prefix of run names in VariantInfo::runs; "" for none
};
struct GroupRuns {
  std::string title, kernel, arch, workload, knobs;
  std::vector<VariantRuns> variants;
};

}  // namespace foliolab
