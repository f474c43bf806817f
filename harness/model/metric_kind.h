// The vocabulary of metrics: which direction is better, whether a metric is a count or a
// timing, and what a workload or an experiment declares about one (MetricInfo). Below both the
// workload catalog, whose workloads declare their metrics with it, and the metric catalog
// (catalog/metric_catalog.h), which looks a metric up across them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/source_loc.h"

namespace foliolab {

enum class Better { kNone, kHigher, kLower };
enum class MetricKind { kCount, kTiming };

// A count's practical threshold: a difference of means within max(abs, rel × the larger
// |mean|) is "no change" (analysis/comparison.h). Zero for exact counts; set for counts that jitter
// by a folio or a page between identical runs (metric_catalog.cc says which and why).
struct CountThreshold {
  double abs = 0;  // in the metric's unit
  double rel = 0;  // of the larger |mean| of the two sides
  double of(double scale) const;
};

struct MetricInfo {
  std::string unit;  // "pages", "kB", "s", "ns", "faults/s", "" (dimensionless)
  Better better = Better::kNone;
  MetricKind kind = MetricKind::kCount;
  bool known = false;            // from the catalog or a declaration, not guessed from the name
  CountThreshold threshold;      // kCount only
  bool from_experiment = false;  // the threshold is the experiment's `thresholds:` entry
  // One of `family` tests judged together (a distribution's quantiles p50, p90, p99 and max):
  // each at alpha / family, so that the family's false-alarm rate stays at alpha (Bonferroni).
  int family = 1;
};

// A `thresholds:` entry of an experiment: the practical threshold of the counts it names, in
// place of the catalog's. `metric` is a name ("fallback.thp") or a
// prefix ending in '*' ("fallback.anon.*").
struct ThresholdRule {
  std::string metric;
  CountThreshold threshold;
  SourceLoc loc;  // of the key
  bool matches(std::string_view name) const;
};
using ThresholdRules = std::vector<ThresholdRule>;

using MetricDecls = std::vector<std::pair<std::string, MetricInfo>>;  // name -> info

std::string_view better_name(Better b);           // "none", "higher", "lower"
std::string_view metric_kind_name(MetricKind k);  // "count", "timing"
std::optional<Better> parse_better(std::string_view text);
std::optional<MetricKind> parse_metric_kind(std::string_view text);

}  // namespace foliolab
