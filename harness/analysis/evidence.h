// Kernel evidence in a comparison (docs/evidence.md#reading-the-evidence): the rows of a group
// that say *why* a number moved (tracepoint and kprobe hits `event.*`, `kprobe.*`, function
// profile hits `func.*`, the folio census `census.*`, and every distribution's quantiles), ranked
// by the size of their change; each distribution's pooled histogram per variant, on shared bins
// for drawing; and the census as a table of (kind, size) by what it counts. Numbers only:
// report/ lays them out.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/group_runs.h"
#include "analysis/metric_row.h"

namespace foliolab {

// A name of kernel evidence by its prefix (event., kprobe., func., census.).
bool is_evidence_name(const std::string& metric);

// One distribution's histogram per variant: every rep of every run pooled, on `edges` (bins + 1
// ascending bounds, log-spaced when every value is positive).
struct DistributionPlot {
  std::string metric, unit;
  std::vector<double> edges;
  std::vector<std::vector<double>> fractions;    // [variant][bin]: of the variant's values
  std::vector<std::array<double, 4>> quantiles;  // [variant]: pooled p50, p90, p99, max
  std::vector<int64_t> counts;                   // [variant]: values pooled
};

// The census side by side: a row per (kind, size), a column per (what, variant).
struct CensusTable {
  std::vector<std::string> whats;  // "folios", "kb", "pte", "pmd", ...: census.<kind>.<size>.<what>
  struct Row {
    std::string kind, size;
    std::vector<std::vector<double>> means;  // [what][variant]: mean over the reps; NaN: absent
  };
  std::vector<Row> rows;  // by kind, then size (4K, 8K, ..., 2M)
};

struct EvidenceSection {
  std::vector<size_t> ranked;  // indexes into the group's rows, the largest change first
  std::vector<DistributionPlot> plots;
  CensusTable census;
  bool empty() const { return ranked.empty() && plots.empty() && census.rows.empty(); }
};

// The size of a row's change for ranking: the largest |relative change| of its deltas, infinity
// for a count that appeared from zero, 0 without a delta.
double change_size(const MetricRow& row);

// Marks the evidence rows of `rows` (MetricRow::evidence: distributions' quantiles and counts,
// and evidence names) and builds the section from them and `in`'s records.
EvidenceSection evidence_section(const GroupRuns& in, std::vector<MetricRow>& rows);

}  // namespace foliolab
