#include "bisect/bisect_outcome.h"

#include <algorithm>

namespace foliolab {

bool BisectOutcome::confirmed() const {
  return state == BisectState::kDone &&
         std::any_of(confirmations.begin(), confirmations.end(),
                     [](const BisectConfirmation& c) { return c.confirmed; });
}

}  // namespace foliolab
