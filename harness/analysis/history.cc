#include "analysis/history.h"

#include <fmt/format.h>

#include <map>

namespace foliolab {

HistoryModel build_history(const std::string& metric, const std::vector<IndexedSample>& samples,
                           const MetricDecls& declared, const CompareOptions& options) {
  HistoryModel m;
  m.metric = metric;
  m.info = metric_info(metric, declared);
  std::map<std::string, size_t> series_of;
  // samples arrive oldest session first: points stay in order.
  std::map<std::pair<size_t, std::string>, std::vector<double>> values;
  std::map<std::pair<size_t, std::string>, bool> emulated;
  std::map<std::pair<size_t, std::string>, bool> wall;  // some run not in instruction-time
  for (const IndexedSample& s : samples) {
    const IndexedRun& r = s.run;
    const std::string label =
        fmt::format("{} · {} · {} · {}", r.kernel, r.arch, r.knob_set, r.workload);
    auto [it, added] = series_of.emplace(label, m.series.size());
    if (added) m.series.push_back({label, {}});
    HistorySeries& series = m.series[it->second];
    if (series.points.empty() || series.points.back().session != r.session) {
      series.points.push_back({r.session, r.stamp, {}, false, false, std::nullopt});
    }
    values[{it->second, r.session}].push_back(s.value);
    emulated[{it->second, r.session}] = emulated[{it->second, r.session}] || r.timings_emulated;
    wall[{it->second, r.session}] = wall[{it->second, r.session}] || r.timing != "icount";
  }
  for (size_t i = 0; i < m.series.size(); ++i) {
    for (HistoryPoint& p : m.series[i].points) {
      p.stats = sample_stats(values[{i, p.session}]);
      p.emulated = emulated[{i, p.session}] && m.info.kind == MetricKind::kTiming;
      p.icount = p.emulated && !wall[{i, p.session}];
    }
    std::vector<HistoryPoint>& points = m.series[i].points;
    for (size_t k = 1; k < points.size(); ++k) {
      const RunConditions cond{.guests_beside = false,
                               .icount = points[k - 1].icount && points[k].icount};
      points[k].delta =
          compare_samples(m.info, points[k - 1].stats, points[k].stats, options, cond);
    }
  }
  return m;
}

}  // namespace foliolab
