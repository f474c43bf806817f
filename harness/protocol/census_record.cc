#include "protocol/census_record.h"

#include <fmt/format.h>

#include "catalog/census_metrics.h"
#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

Result<int64_t> integer(const std::string& key, const std::string& value) {
  auto n = parse_int(value);
  if (!n || *n < 0) {
    return make_error(
        fmt::format("census: {} is not a count: \"{}\"", bounded(key, 64), bounded(value, 64)));
  }
  return *n;
}

Result<CensusMapping> parse_mapping(const std::string& key, const std::string& value) {
  const size_t bar = value.find('|');
  const auto words = split_words(std::string_view(value).substr(0, bar));
  const auto bad = [&] {
    return make_error(
        fmt::format("census: {} is not \"<pid> <start>-<end> <perms> <rss kB> "
                    "<counted kB> <detail>|<name>\": \"{}\"",
                    bounded(key, 32), bounded(value, 120)));
  };
  if (bar == std::string::npos || words.size() < 5) return bad();
  CensusMapping m;
  const size_t dash = words[1].find('-');
  auto pid = parse_int(words[0]), rss = parse_int(words[3]), counted = parse_int(words[4]);
  auto start = parse_uint(words[1].substr(0, dash), 16);
  auto end = dash == std::string::npos ? std::nullopt : parse_uint(words[1].substr(dash + 1), 16);
  if (!pid || !rss || !counted || !start || !end) return bad();
  m = {*pid, *start,   *end, bounded(words[2], 8),
       *rss, *counted, {},   bounded(value.substr(bar + 1))};
  for (size_t i = 5; i < words.size(); ++i) m.detail += (i > 5 ? " " : "") + bounded(words[i], 64);
  return m;
}

Result<void> read_header(const std::string& k, const std::string& v, CensusRecord* c) {
  if (k == "pids") {
    c->pids = bounded(v, 256);
    return {};
  }
  if (k == "status") {
    if (v == "ok") return {};
    return make_error(
        fmt::format("census of pids {} {}: the agent could not read their "
                    "/proc files whole (console log: foliolab-agent: census)",
                    c->pids, bounded(v, 32)));
  }
  int64_t* field = k == "rep"       ? &c->rep
                   : k == "index"   ? &c->index
                   : k == "page_kb" ? &c->page_kb
                   : k == "pmd_kb"  ? &c->pmd_kb
                                    : &c->cont_kb;
  auto n = integer(k, v);
  FL_TRY(n);
  *field = *n;
  return {};
}

bool is_header(const std::string& k) {
  return k == "rep" || k == "index" || k == "pids" || k == "status" || k == "page_kb" ||
         k == "pmd_kb" || k == "cont_kb";
}

}  // namespace

Result<CensusRecord> parse_census_record(const KeyValues& kv) {
  CensusRecord c;
  for (const auto& [k, v] : kv) {
    if (is_header(k)) {
      FL_TRY(read_header(k, v, &c));
    } else if (k.starts_with("vma.")) {
      if (c.mappings.size() >= kMaxCensusMappings) continue;
      auto m = parse_mapping(k, v);
      FL_TRY(m);
      c.mappings.push_back(std::move(*m));
    } else {
      if (Result<void> st = check_census_metric(k); !st.ok()) return st.error();
      auto n = integer(k, v);
      FL_TRY(n);
      c.metrics[std::string(kCensusPrefix) + k] = static_cast<double>(*n);
    }
  }
  return c;
}

void add_census(CensusRecord c, size_t max_metrics, std::map<std::string, double>* metrics,
                std::vector<CensusMapping>* mappings) {
  for (CensusMapping& m : c.mappings) {
    if (mappings->size() < kMaxCensusMappings) mappings->push_back(std::move(m));
  }
  if (c.index == 0) add_census_metrics(c.metrics, max_metrics, metrics);
}

void add_census_metrics(const std::map<std::string, double>& census, size_t max_metrics,
                        std::map<std::string, double>* metrics) {
  for (const auto& [name, value] : census) {
    if (metrics->size() < max_metrics) metrics->try_emplace(name, value);
  }
}

}  // namespace foliolab
