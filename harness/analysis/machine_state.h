// What a comparison says about the machine's state (issue 29): the monitor's time series of each
// counter, runs overlaid, and warnings when the runs compared were prepared into different states
// (a fragmented guest against a fresh one, a fragmentation that reached another index, another
// swap size): counts measured under different states are not compared silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/group_runs.h"

namespace foliolab {

// One rep's samples of one counter: label "<variant> <run id> rep <n>".
struct MonitorTrace {
  std::string label;
  size_t variant = 0;
  std::vector<int64_t> t_ms, values;
};
// One plot per monitored counter.
struct MonitorPlot {
  std::string counter;
  std::vector<MonitorTrace> traces;
};
std::vector<MonitorPlot> monitor_plots(const GroupRuns& in);

// How far apart two prepared states may be before a comparison warns: the unusable free space
// index a fragment step reached (in 1/1000, the agent's unit) and the swap the guest had.
inline constexpr int64_t kStateIndexTolerance = 50;  // 0.050 of the index
std::vector<std::string> state_warnings(const GroupRuns& in);

// Whether a run of the variant had its memory fragmented by a `prepare:` step (its record's
// `prepared` holds a fragment step): its counts vary from boot to boot (RunConditions).
bool fragmented_runs(const VariantRuns& v);
// The note of a group whose counts were judged with the between-boot threshold, or "".
std::string fragmented_note(const GroupRuns& in);

}  // namespace foliolab
