#include "catalog/census_metrics.h"

#include <fmt/format.h>
#include <array>

#include "util/text.h"

namespace foliolab {
namespace {

constexpr std::array<std::string_view, 3> kKinds = {"anon", "shmem", "file"};
constexpr std::array<std::string_view, 5> kTotals = {"zero_kb", "special_kb", "hugetlb_kb",
                                                     "rss_kb", "counted_kb"};
constexpr std::array<std::string_view, 3> kPerKind = {"partial", "partial_kb", "cont_pte_blocks"};
constexpr std::array<std::string_view, 3> kPerSize = {"folios", "kb", "pmd_mapped"};

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  for (std::string_view v : set) {
    if (s == v) return true;
  }
  return false;
}

// "4K", "64K", "2M", "1G": digits and one of K, M, G.
bool is_size(std::string_view s) {
  if (s.size() < 2 || !(s.back() == 'K' || s.back() == 'M' || s.back() == 'G')) return false;
  return parse_int(s.substr(0, s.size() - 1)).has_value();
}

}  // namespace

Result<void> check_census_metric(std::string_view rest) {
  if (one_of(rest, kTotals)) return {};
  const size_t dot = rest.find('.');
  const std::string_view kind = rest.substr(0, dot);
  const std::string_view tail = dot == std::string_view::npos ? "" : rest.substr(dot + 1);
  const size_t dot2 = tail.find('.');
  if (one_of(kind, kKinds) &&
      (one_of(tail, kPerKind) || (dot2 != std::string_view::npos && is_size(tail.substr(0, dot2)) &&
                                  one_of(tail.substr(dot2 + 1), kPerSize)))) {
    return {};
  }
  return make_error(fmt::format(
      "'census.{}' is no census metric: census.<anon|shmem|file>.<size>.<folios|kb|pmd_mapped>, "
      "census.<kind>.<partial|partial_kb|cont_pte_blocks> or census.<zero_kb|special_kb|"
      "hugetlb_kb|rss_kb|counted_kb> (sizes as 4K, 64K, 2M)",
      rest));
}

// Thresholds: the census of one process is exact but for the few base pages its stack, heap and
// libc data take between identical runs (the catalog's rss_kb moved by 4-56 kB): kB at most
// 64 kB apart, and base-page folios (4K) 16 apart, are no change; large folios are exact.
MetricInfo census_metric_info(std::string_view metric) {
  MetricInfo info{"", Better::kNone, MetricKind::kCount, true};
  if (metric.ends_with("kb")) {
    info.unit = "kB";
    info.threshold = {64, 0};
  } else if (metric.ends_with(".cont_pte_blocks")) {
    info.unit = "blocks";
  } else {
    info.unit = "folios";
    if (metric.ends_with(".4K.folios")) info.threshold = {16, 0};
  }
  return info;
}

std::string census_size_name(long long kb) {
  if (kb >= 1 << 20 && kb % (1 << 20) == 0) return fmt::format("{}G", kb >> 20);
  if (kb >= 1 << 10 && kb % (1 << 10) == 0) return fmt::format("{}M", kb >> 10);
  return fmt::format("{}K", kb);
}

}  // namespace foliolab
