// Plan-time limits that do not depend on the project tree: guest memory against the host,
// repeat and timeout bounds, result path lengths, and a matrix that `exclude:` emptied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// What the host offers; a seam so that tests do not depend on the machine.
struct HostFacts {
  std::optional<uint64_t> mem_total_mb;  // MemTotal of /proc/meminfo; nullopt = unknown
  // The files of kTracefsFiles this machine's tracefs lacks (or cannot read): what `evidence:`
  // on `backend: host` needs (catalog/evidence_check.h).
  std::vector<std::string> tracefs_missing;
};

// The tracefs files the agent uses for `evidence:` (images/agent/evidence.c), relative to the
// tracefs mount.
inline constexpr const char* kTracefsFiles[] = {
    "available_events",           "set_event_pid",           "options/event-fork", "kprobe_events",
    "available_filter_functions", "function_profile_enabled"};

// Reads MemTotal from a /proc/meminfo-formatted file (unknown when it cannot) and which of
// kTracefsFiles `tracefs` lacks.
HostFacts read_host_facts(const std::string& meminfo_path = "/proc/meminfo",
                          const std::string& tracefs = "/sys/kernel/tracing");
std::optional<uint64_t> parse_mem_total_mb(const std::string& meminfo_text);

inline constexpr int kMaxTimeoutS = 7 * 86400;  // one guest boot: a week at most
inline constexpr size_t kNameMax = 255;         // NAME_MAX: one path component
inline constexpr size_t kPathMax = 4096;        // PATH_MAX

// Every problem, one per line, located ("file:line:col: machine.memory: ..."). The results
// path checked is <results_root>/<name>/<stamp>/runs/<run id>/console.log.
Result<void> check_plan_limits(const Experiment& exp, const HostFacts& host,
                               const std::string& results_root);

// "at most 2h 40m: 16 runs × 600 s timeout (repeat 3 each)".
std::string format_time_estimate(const Experiment& exp, const std::vector<Run>& runs);

}  // namespace foliolab
