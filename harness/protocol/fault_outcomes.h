// Per-size outcomes of a rep's faults, derived from its counter deltas as workload metrics
// (catalog: count metrics with a threshold), where the rep faulted that size at all (alloc +
// fallback > 0): the success rate alloc / (alloc + fallback) and the fallbacks met, of anonymous
// faults (success.anon.<size>, fallback.anon.<size>: mthp.<size>.anon_fault_alloc and _fallback;
// the PMD size is one of the sizes), of shmem (success.shmem.<size>, fallback.shmem.<size>) and of
// PMD THP faults as /proc/vmstat counts them (success.thp, fallback.thp). The agent's counters
// bracket the workload process, so these are the fallbacks the workload met.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace foliolab {

// Adds the outcomes to *metrics (a name already there is kept), up to max_metrics names in all.
void add_fault_outcomes(const std::map<std::string, int64_t>& deltas, size_t max_metrics,
                        std::map<std::string, double>* metrics);

}  // namespace foliolab
