// The folio census's metrics (docs/evidence.md "Folio census"): the names the agent's `census`
// record gives (images/agent/census_proc.c), as count metrics of the run record:
//   census.<kind>.<size>.folios      fully mapped folios of that size (kind: anon, shmem, file)
//   census.<kind>.<size>.kb          kB mapped from folios of that size (partial ones included)
//   census.<kind>.<pmd size>.pmd_mapped  of the PMD-size folios, those mapped by a PMD
//   census.<kind>.partial            large folios the mappings map only in part
//   census.<kind>.partial_kb         their mapped kB
//   census.<kind>.cont_pte_blocks    arm64: naturally aligned contiguous-PTE blocks
//   census.zero_kb, census.special_kb, census.hugetlb_kb, census.rss_kb (smaps Rss summed),
//   census.counted_kb (the census's own sum, equal to rss_kb in a still process)
// Sizes are spelled as the census spells them: 4K, 64K, 2M, 512M.
#pragma once

#include <string>
#include <string_view>

#include "model/metric_kind.h"
#include "util/result.h"

namespace foliolab {

inline constexpr std::string_view kCensusPrefix = "census.";

// Whether `rest` (the name after "census.") is a census metric's shape; the message lists them.
Result<void> check_census_metric(std::string_view rest);

// The unit and threshold of a census metric (a count: kB, folios or blocks).
MetricInfo census_metric_info(std::string_view metric);

// "64K" from 64 (kB), "2M" from 2048, "1G" from 1048576 (images/agent/census.c's spelling).
std::string census_size_name(long long kb);

}  // namespace foliolab
