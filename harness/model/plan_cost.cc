#include "model/plan_cost.h"

#include <set>

namespace foliolab {

int PlanCost::to_build() const {
  std::set<std::string> ids;  // two kernel names with one build id are one build
  for (const PlannedKernel& k : kernels) {
    if (!k.cached) ids.insert(k.build_id);
  }
  return static_cast<int>(ids.size());
}

}  // namespace foliolab
