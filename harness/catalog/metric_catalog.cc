#include "catalog/metric_catalog.h"

#include <optional>

#include "catalog/census_metrics.h"
#include "catalog/workload_catalog.h"
#include "model/distribution.h"

namespace foliolab {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

// Kernel evidence (docs/evidence.md), the one place its thresholds are set. Tracepoint and
// kprobe hits of the workload's own processes (set_event_pid: nothing else counts): what the
// workload does is exact (fault 64M: folio_zero_user 1024 at 64K in every rep), but address-space
// randomization moves its page tables and stack: two reps of one boot differed by 1
// handle_mm_fault and by 4-5 order-0 mm_page_alloc (x86_64, 2026-12-07): 8 hits or 1 % of the
// larger mean, whichever is larger. The function profiler counts the whole guest during the rep
// (the kernel's profiler does not honour set_ftrace_pid): its rows moved by up to 30 %
// (__mod_zone_page_state, the timer's and the agent's share) between those reps: 16 calls or
// 50 %, a coarse pointer, not a gate. A profile has hundreds of rows, each judged alone: the
// floors keep an A/A quiet (analysis/evidence tests). The census: catalog/census_metrics.h.
std::optional<CountThreshold> evidence_threshold(std::string_view metric) {
  if (metric.starts_with(kCensusPrefix)) return census_metric_info(metric).threshold;
  if (metric.starts_with("event.") || metric.starts_with("kprobe.")) {
    return CountThreshold{8, 0.01};
  }
  if (metric.starts_with("func.")) return CountThreshold{16, 0.5};
  return std::nullopt;
}

// Practical thresholds of the counts that jitter between identical runs (a percentage is of
// the larger mean of the two sides), from two identical quickstart sessions (fault 64M, n=3,
// x86_64 and arm64 under TCG; docs/comparisons.md):
//   rss_kb, vmrss_kb, rss_kb_after: Rss moved by 4-56 kB (a folio, page tables, the stack):
//     one PMD at 4K pages (2048 kB) or 0.5 %, whichever is larger;
//   meminfo.* (kB, gauges): AnonPages by 0-20 kB, MemFree by up to 80 MB: 2048 kB or 0.5 %;
//   vmstat.nr_*hugepages (THPs): 1; other vmstat.nr_* (pages, gauges): nr_anon_pages by 0-18,
//     nr_free_pages by up to 4000: 512 pages (one PMD at 4K) or 0.5 %;
//   mthp.<size>.nr_anon, nr_anon_partially_mapped, split_deferred: 0 or 1 folio a rep: 1;
//   other vmstat. and mthp. event counters: pgfault by 5 in 16.4k, mthp anon_fault_alloc by 3
//     in 1024 (the agent's own faults), pgalloc/pgfree by 60 in 17.1k: 0.5 % of the mean with
//     no absolute floor, so that 31 THP faults against 32 is still a change.
// Workload counts (faults, pages, anon_huge_kb, tap.*) are exact: 0; so are the THP-backed sizes
// the application workloads report (server_anon_huge_kb, max_anon_thp_kb, shmem_mthp_kb).
CountThreshold count_threshold(std::string_view metric) {
  constexpr double kPmdKb = 2048, kPmdPages = 512, kRel = 0.005;
  if (auto t = evidence_threshold(metric)) return *t;
  if (metric == "rss_kb" || metric == "vmrss_kb" || metric == "rss_kb_after") {
    return {kPmdKb, kRel};
  }
  // The real applications' footprints (redis, postgres, memcg-stress): a server's Rss and shmem
  // and a cgroup's peak move by a few hundred kB between identical runs (postgres: shmem_kb and
  // server_rss_kb CV 0.1 % within a side): the same PMD or 0.5 %.
  for (std::string_view gauge :
       {"server_rss_kb", "shmem_kb", "shmem_segment_kb", "peak_kb", "max_anon_kb"}) {
    if (metric == gauge) return {kPmdKb, kRel};
  }
  if (metric.starts_with("meminfo.")) return {kPmdKb, kRel};
  if (metric.starts_with("vmstat.nr_")) {
    return ends_with(metric, "hugepages") ? CountThreshold{1, 0} : CountThreshold{kPmdPages, kRel};
  }
  if (metric.starts_with("mthp.")) {
    for (std::string_view gauge : {".nr_anon", ".nr_anon_partially_mapped", ".split_deferred"}) {
      if (ends_with(metric, gauge)) return {1, 0};
    }
  }
  if (metric.starts_with("vmstat.") || metric.starts_with("mthp.")) return {0, kRel};
  // Success rates (alloc / (alloc + fallback)) move by one fault in a few thousand on a fresh
  // guest; under a prepared state by up to 0.02 between identical runs (docs/machine-state.md):
  // 0.02 absolute.
  if (metric.starts_with("success.")) return {0.02, 0};
  // The fallbacks behind them (fallback.thp, fallback.<anon|shmem>.<size>): none on a fresh
  // guest, and under a prepared state as many as the layout leaves; at most one fault apart
  // between identical runs or 2 %, whichever is larger (docs/machine-state.md).
  if (metric.starts_with("fallback.")) return {1, 0.02};
  return {};
}

MetricInfo with_threshold(MetricInfo info, std::string_view metric, const ThresholdRules& rules) {
  if (info.kind != MetricKind::kCount) return info;
  for (const ThresholdRule& rule : rules) {
    if (!rule.matches(metric)) continue;
    info.threshold = rule.threshold;
    info.from_experiment = true;
    return info;
  }
  info.threshold = count_threshold(metric);
  return info;
}

MetricInfo catalog_info(std::string_view metric, const MetricDecls& declared) {
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
  if (metric.starts_with("success.")) return {"", Better::kHigher, MetricKind::kCount, true};
  if (metric.starts_with("fallback.")) {
    return {"faults", Better::kLower, MetricKind::kCount, true};
  }
  if (metric.starts_with("state.")) return {"", Better::kNone, MetricKind::kCount, true};
  if (metric.starts_with("event.")) return {"events", Better::kNone, MetricKind::kCount, true};
  // A kprobe's hits; its latency (kprobe.<function>.latency_ns) is a distribution, whose
  // quantiles are timings (quantile_info).
  if ((metric.starts_with("kprobe.") && metric.find(".latency_") == std::string_view::npos) ||
      metric.starts_with("func.")) {
    return {"calls", Better::kNone, MetricKind::kCount, true};
  }
  if (metric.starts_with(kCensusPrefix)) return census_metric_info(metric);
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

// A distribution's quantile (<base>.p50, .p90, .p99, .max): the base's unit and direction (a
// declaration's; a kprobe's latency: lower is better), judged as a timing, one of the family of
// four (docs/comparisons.md#distributions).
MetricInfo quantile_info(std::string_view base, const MetricDecls& declared) {
  MetricInfo info = catalog_info(base, declared);
  if (!info.known && base.starts_with("kprobe.")) info.better = Better::kLower;
  info.kind = MetricKind::kTiming;
  info.threshold = {};
  info.family = static_cast<int>(kDistributionQuantiles.size());
  return info;
}

}  // namespace

MetricInfo metric_info(std::string_view metric, const MetricDecls& declared,
                       const ThresholdRules& rules) {
  MetricInfo info = catalog_info(metric, declared);
  if (!info.known) {
    if (auto q = parse_quantile_name(metric)) return quantile_info(q->base, declared);
  }
  return with_threshold(std::move(info), metric, rules);
}

}  // namespace foliolab
