#include "catalog/metric_catalog.h"

#include "catalog/workload_catalog.h"

namespace foliolab {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

}  // namespace

MetricInfo metric_info(std::string_view metric, const MetricDecls& declared) {
  for (const auto& [name, info] : declared) {
    if (name == metric) {
      MetricInfo out = info;
      out.known = true;
      return out;
    }
  }
  // Built-in workloads declare their metrics in workloads/<name>.def; a name two workloads
  // print means the same in both (workload_catalog_test checks it).
  for (const WorkloadInfo& w : workload_catalog()) {
    if (const WorkloadMetric* m = w.metric(metric)) return m->info;
  }
  // /proc/meminfo values are kB; vmstat events and mthp stats are counts of events or pages.
  // TAP results of a test-suite workload (guest/output_adapter.h).
  if (metric == "tap.pass") return {"tests", Better::kHigher, MetricKind::kCount, true};
  if (metric == "tap.fail") return {"tests", Better::kLower, MetricKind::kCount, true};
  if (metric == "tap.skip") return {"tests", Better::kNone, MetricKind::kCount, true};
  if (metric.starts_with("meminfo.")) return {"kB", Better::kNone, MetricKind::kCount, true};
  if (metric.starts_with("vmstat.") || metric.starts_with("mthp.")) {
    return {"", Better::kNone, MetricKind::kCount, true};
  }
  for (std::string_view suffix : {"_s", "_ns", "_us", "_ms", "per_sec"}) {
    if (ends_with(metric, suffix)) {
      const std::string unit = suffix == "per_sec" ? "/s" : std::string(suffix.substr(1));
      return {unit, Better::kNone, MetricKind::kTiming, false};
    }
  }
  return {"", Better::kNone, MetricKind::kCount, false};
}

}  // namespace foliolab
