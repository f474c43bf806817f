#include "model/metric_catalog.h"

namespace foliolab {
namespace {

struct Entry {
  std::string_view name;
  std::string_view unit;
  Better better;
  MetricKind kind;
};

constexpr auto C = MetricKind::kCount;
constexpr auto T = MetricKind::kTiming;
constexpr auto H = Better::kHigher;
constexpr auto L = Better::kLower;
constexpr auto N = Better::kNone;

// Metrics the shipped workloads print (workloads/*.c, wl_json_* calls). Parameters echoed back
// (size, threads, page_size, ...) have no better direction.
constexpr Entry kBuiltin[] = {
    // fault (pft-style): fewer faults and less system time are better.
    {"faults", "faults", L, C},
    {"pages", "pages", N, C},
    {"user_s", "s", L, T},
    {"sys_s", "s", L, T},
    {"wall_s", "s", L, T},
    {"setup_s", "s", L, T},
    {"faults_per_sec", "faults/s", H, T},
    {"faults_per_sec_per_cpu", "faults/s", H, T},
    {"rss_kb", "kB", N, C},
    {"anon_huge_kb", "kB", N, C},
    {"shmem_pmd_kb", "kB", N, C},
    {"page_size", "B", N, C},
    {"threads", "", N, C},
    // zero-page
    {"size", "B", N, C},
    {"reads", "", N, C},
    {"vmrss_kb", "kB", L, C},
    {"thp_zero_page_alloc", "", N, C},
    // thp-util
    {"thps", "", N, C},
    {"touched", "", N, C},
    {"subpages", "", N, C},
    {"underused_split", "", N, C},
    {"rss_kb_after", "kB", L, C},
    {"anon_huge_kb_after", "kB", N, C},
    {"rss_after_ratio", "", L, C},
    {"underused_split_fraction", "", N, C},
    // numa-thp
    {"nodes", "", N, C},
    {"chunk", "B", N, C},
    {"pages_queried", "pages", N, C},
    {"remote_pages", "pages", L, C},
    // tlb
    {"stride_bytes", "B", N, C},
    {"elements", "", N, C},
    {"accesses", "", N, C},
    {"ns_per_access", "ns", L, T},
    {"setup_faults", "faults", L, C},
};

constexpr std::string_view kNames[] = {"none", "higher", "lower"};
constexpr std::string_view kKinds[] = {"count", "timing"};

bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

}  // namespace

std::string_view better_name(Better b) { return kNames[static_cast<size_t>(b)]; }
std::string_view metric_kind_name(MetricKind k) { return kKinds[static_cast<size_t>(k)]; }

std::optional<Better> parse_better(std::string_view text) {
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == text) return static_cast<Better>(i);
  }
  return std::nullopt;
}

std::optional<MetricKind> parse_metric_kind(std::string_view text) {
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    if (kKinds[i] == text) return static_cast<MetricKind>(i);
  }
  return std::nullopt;
}

MetricInfo metric_info(std::string_view metric, const MetricDecls& declared) {
  for (const auto& [name, info] : declared) {
    if (name == metric) {
      MetricInfo out = info;
      out.known = true;
      return out;
    }
  }
  for (const Entry& e : kBuiltin) {
    if (e.name == metric) return {std::string(e.unit), e.better, e.kind, true};
  }
  // /proc/meminfo values are kB; vmstat events and mthp stats are counts of events or pages.
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
