// `foliolab plan`'s cost lines: kernels and images cached or to build, and the estimate.
#pragma once

#include <string>

#include "model/plan_cost.h"

namespace foliolab {

// "kernels: 6.12-mthp-vmstat x86_64 cached (1300c8170a8f29e2), ... arm64 to build (...)\n"
// "images: x86_64 cached, arm64 to build\n"
// "builds: none (all 2 kernels cached)" or "builds: 1 kernel, about 3m20s (median of this
// host's 2 past builds)" or "... about 10m0s (generic: this host has built none yet)".
std::string plan_cost_text(const PlanCost& cost);

}  // namespace foliolab
