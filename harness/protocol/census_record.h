// The agent's `census` record (docs/guest-protocol.md; images/agent/census_proc.c): the folio
// census of the workload's processes at its peak, read into count metrics (census.<key>,
// catalog/census_metrics.h) and the census of each mapping. Guest output is untrusted: every
// value is checked, a bad one is an error naming the key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/experiment.h"  // KeyValues
#include "util/result.h"

namespace foliolab {

// One mapping (`vma.<n>`): "<pid> <start>-<end> <perms> <rss kB> <counted kB> <detail>|<name>",
// detail being "<kind>.<size>=<folios>/<kB>" tokens (and "<kind>.partial=<n>", "zero=<pages>").
struct CensusMapping {
  int64_t pid = 0;
  uint64_t start = 0, end = 0;
  std::string perms;
  int64_t rss_kb = 0;      // smaps Rss
  int64_t counted_kb = 0;  // the census's pages of the mapping
  std::string detail;
  std::string name;  // "" for an anonymous mapping
};

struct CensusRecord {
  int64_t rep = 0;
  int64_t index = 0;  // the rep's n-th census (the first gives the metrics)
  std::string pids;
  int64_t page_kb = 0, pmd_kb = 0, cont_kb = 0;
  std::map<std::string, double> metrics;  // census.<key>
  std::vector<CensusMapping> mappings;
};

inline constexpr size_t kMaxCensusMappings = 65536;

// The record's payload, or an error naming the bad key (a census whose status is not ok is one).
Result<CensusRecord> parse_census_record(const KeyValues& kv);

// The census metrics a rep's stdout did not name, into its metrics (up to max_metrics in all).
void add_census_metrics(const std::map<std::string, double>& census, size_t max_metrics,
                        std::map<std::string, double>* metrics);

// A rep's census into its metrics (the first census of the rep only, up to max_metrics names in
// all) and its mappings (every census's).
void add_census(CensusRecord c, size_t max_metrics, std::map<std::string, double>* metrics,
                std::vector<CensusMapping>* mappings);

}  // namespace foliolab
