// What a metric is: its unit, which direction is better, and whether it is a count (exact,
// deterministic in a quiet guest: faults, bytes, THP allocations) or a timing (noisy, and only
// an emulation timing under TCG). Built-in workload metrics come from the workload catalog
// (catalog/workload_catalog.h, workloads/*.def); counter deltas (vmstat., mthp., meminfo.) and
// TAP results (tap.pass, tap.fail, tap.skip) are counts; custom workloads declare theirs in the
// YAML.
#pragma once

#include <string_view>

#include "model/metric_kind.h"

namespace foliolab {

// Declarations first, then the built-in table, then counter prefixes; an unknown name is
// guessed from its suffix (_s, _ns, _us, _ms, per_sec: a timing) and marked !known. A count's
// thresholds are the catalog's, or those of the first of `rules` that matches it.
MetricInfo metric_info(std::string_view metric, const MetricDecls& declared = {},
                       const ThresholdRules& rules = {});

}  // namespace foliolab
