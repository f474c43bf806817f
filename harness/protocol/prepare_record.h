// The guest's `prepare` record (docs/guest-protocol.md): one machine-state step, its `step`
// and every other field as the guest wrote them, bounded (at most kMaxPrepareFields fields).
#pragma once

#include <cstddef>

#include "model/experiment.h"  // KeyValues
#include "model/machine_state.h"

namespace foliolab {

inline constexpr size_t kMaxPrepareFields = 4096;

PreparedStep read_prepare_record(const KeyValues& kv);

}  // namespace foliolab
