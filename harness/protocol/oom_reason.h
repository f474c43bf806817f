// Why a workload died of SIGKILL when its memory cgroup killed it: the `state` records around
// the rep carry the cgroup's memory.events (memcg.events.*, docs/guest-protocol.md), and an
// oom_kill that rose during the rep names the OOM killer, not a bare "killed by signal 9".
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace foliolab {

// "OOM-killed in its memory cgroup (memory.events: oom 1, oom_kill 1, max 57)" when a rep's
// workload died of `signal` SIGKILL and memcg.events.oom_kill in its `state` after the rep
// exceeds the one before it (0 when the before record has none); empty otherwise (without a
// cgroup there is no memcg.events.*: the plain signal stays the reason).
using StateValues = std::map<std::string, int64_t>;
std::string oom_kill_reason(int64_t signal, const StateValues& before, const StateValues& after);

}  // namespace foliolab
