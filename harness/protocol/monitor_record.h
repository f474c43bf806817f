// The `monitor` record's samples (docs/guest-protocol.md): s0, s1, ...: "<t_ms> <value>..." each,
// one value per counter; at most kMaxMonitorSamples kept.
#pragma once

#include <string>
#include <vector>

#include "model/experiment.h"  // KeyValues
#include "model/machine_state.h"

namespace foliolab {

// The samples of `kv` into *m (whose counters are set); a sample of the wrong width is a
// problem ("<where>: sample s3 has 2 values for 3 counters") and is skipped.
void read_monitor_samples(const KeyValues& kv, const std::string& where, MonitorSeries* m,
                          std::vector<std::string>* problems);

}  // namespace foliolab
