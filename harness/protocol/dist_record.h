// The guest's `dist` record (docs/guest-protocol.md): one distribution metric of one rep, as
// buckets (model/distribution.h has the shape). The payload is key/value lines:
//   rep    0
//   name   kprobe.handle_mm_fault.latency_ns   ([A-Za-z0-9_.:-], at most 256 bytes)
//   unit   ns                                  (may be empty; at most 16 bytes)
//   count  16384     sum 1966080     min 96     max 20480     (count an integer >= 1)
//   b0     96 96 120                           (<lo> <hi> <count>: lo == hi is the value lo)
//   b1     128 256 16000                       ([lo, hi): ascending, not overlapping)
// at most 4096 buckets b0, b1, ... in order, their counts summing to count. Untrusted: a record
// that breaks any of this is a problem of the run and keeps nothing.
#pragma once

#include <map>
#include <string>

#include "model/distribution.h"
#include "model/experiment.h"  // KeyValues

namespace foliolab {

inline constexpr size_t kMaxDistributionsPerRep = 256;

// Reads one `dist` record's payload (its `rep` already taken) into `into` under its name.
// "" when kept, else why not.
std::string read_dist_record(const KeyValues& kv, std::map<std::string, Distribution>& into);

}  // namespace foliolab
