#include "protocol/monitor_record.h"

#include <fmt/format.h>

#include <cstdint>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {

void read_monitor_samples(const KeyValues& kv, const std::string& where, MonitorSeries* m,
                          std::vector<std::string>* problems) {
  for (const auto& [k, v] : kv) {
    if (k.size() < 2 || k[0] != 's' || !parse_int(k.substr(1))) continue;
    if (m->t_ms.size() >= static_cast<size_t>(kMaxMonitorSamples)) break;
    std::vector<int64_t> row;
    for (const std::string& c : split_words(v)) {
      if (auto n = parse_int(c)) row.push_back(*n);
    }
    if (row.size() != m->counters.size() + 1) {
      problems->push_back(fmt::format("{}: sample {} has {} values for {} counters", where,
                                      bounded(k, 16), row.size(), m->counters.size()));
      continue;
    }
    m->t_ms.push_back(row[0]);
    for (size_t c = 0; c < m->counters.size(); ++c) m->values[c].push_back(row[c + 1]);
  }
}

}  // namespace foliolab
