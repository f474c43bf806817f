// What a metric is: its unit, which direction is better, and whether it is a count (exact,
// deterministic in a quiet guest: faults, bytes, THP allocations) or a timing (noisy, and only
// an emulation timing under TCG). Built-in workload metrics come from the workload catalog
// (model/workload_catalog.h, workloads/*.def); counter deltas (vmstat., mthp., meminfo.) and
// TAP results (tap.pass, tap.fail, tap.skip) are counts; custom workloads declare theirs in the
// YAML.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foliolab {

enum class Better { kNone, kHigher, kLower };
enum class MetricKind { kCount, kTiming };

struct MetricInfo {
  std::string unit;  // "pages", "kB", "s", "ns", "faults/s", "" (dimensionless)
  Better better = Better::kNone;
  MetricKind kind = MetricKind::kCount;
  bool known = false;  // from the catalog or a declaration, not guessed from the name
};

using MetricDecls = std::vector<std::pair<std::string, MetricInfo>>;  // name -> info

std::string_view better_name(Better b);       // "none", "higher", "lower"
std::string_view metric_kind_name(MetricKind k);  // "count", "timing"
std::optional<Better> parse_better(std::string_view text);
std::optional<MetricKind> parse_metric_kind(std::string_view text);

// Declarations first, then the built-in table, then counter prefixes; an unknown name is
// guessed from its suffix (_s, _ns, _us, _ms, per_sec: a timing) and marked !known.
MetricInfo metric_info(std::string_view metric, const MetricDecls& declared = {});

}  // namespace foliolab
