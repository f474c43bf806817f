// `foliolab history METRIC`: one metric across sessions, from the index. A series per run
// identity (kernel · arch · knobs · workload), a point per session with its statistics.
// report/ renders it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "results/index.h"

namespace foliolab {

inline constexpr int kHistorySchema = 1;

struct HistoryPoint {
  std::string session, stamp;
  SampleStats stats;
  bool emulated = false;
  bool icount = false;  // emulated, every run of the point in instruction-time
  // Against the series' previous point, by the rule of compare (compare_samples; the index
  // keeps no guests-beside provenance, so that condition is not applied here).
  std::optional<Delta> delta;
};

struct HistorySeries {
  std::string label;                 // "6.12-mthp-vmstat · x86_64 · 64K mTHP · fault"
  std::vector<HistoryPoint> points;  // oldest first
};

struct HistoryModel {
  std::string metric;
  MetricInfo info;
  std::vector<HistorySeries> series;
};

HistoryModel build_history(const std::string& metric, const std::vector<IndexedSample>& samples,
                           const MetricDecls& declared = {}, const CompareOptions& options = {});

}  // namespace foliolab
