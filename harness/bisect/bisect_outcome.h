// How a bisection ended, as data: the search's state and culprits, the confirmations and the
// steps. Made by run_bisect (bisect/bisect_driver.h), printed by report/bisect.h.
#pragma once

#include <cstddef>
#include <vector>

#include "bisect/bisect_search.h"
#include "results/bisect_log.h"

namespace foliolab {

struct BisectOutcome {
  BisectState state = BisectState::kRunning;
  std::vector<BisectCulprit> culprits;
  std::vector<BisectConfirmation> confirmations;  // one per exact culprit, in order
  std::vector<BisectStep> steps;                  // as observed (replayed ones first)
  size_t replayed = 0;                            // steps taken from the log
  // A confirmed culprit was found (exit 0); else none, unconfirmed or did not reproduce.
  bool confirmed() const;
};

}  // namespace foliolab
