#include "analysis/history.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "catalog/metric_catalog.h"

namespace foliolab {

HistoryModel build_history(const std::string& metric, const std::vector<IndexedSample>& samples,
                           const MetricDecls& declared, const CompareOptions& options) {
  HistoryModel m;
  m.metric = metric;
  m.info = metric_info(metric, declared, options.thresholds);
  std::map<std::string, size_t> series_of;
  // samples arrive oldest session first: points stay in order.
  std::map<std::pair<size_t, std::string>, std::vector<double>> values;
  std::map<std::pair<size_t, std::string>, bool> emulated;
  std::map<std::pair<size_t, std::string>, bool> wall;  // some run not in instruction-time
  for (const IndexedSample& s : samples) {
    const IndexedRun& r = s.run;
    const std::string label =
        fmt::format("{}{}{} · {} · {} · {}", r.experiment, r.experiment.empty() ? "" : " · ",
                    r.kernel, r.arch, r.knob_set, r.workload);
    auto [it, added] = series_of.emplace(label, m.series.size());
    if (added) {
      HistorySeries& n = m.series.emplace_back();
      n.label = label;
      n.experiment = r.experiment;
      n.kernel = r.kernel;
      n.arch = r.arch;
      n.knob_set = r.knob_set;
      n.workload = r.workload;
    }
    HistorySeries& series = m.series[it->second];
    if (series.points.empty() || series.points.back().session != r.session) {
      series.points.push_back({r.session, r.stamp, r.session_dir, {}, false, false, std::nullopt});
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

namespace {

// Every session's repetitions within the threshold of each other: the count is exact.
bool exact_count(const HistorySeries& s, const CountThreshold& same) {
  return std::all_of(s.points.begin(), s.points.end(), [&](const HistoryPoint& p) {
    return p.stats.values.empty() ||
           p.stats.max - p.stats.min <= same.of(std::max(std::fabs(p.stats.min), p.stats.max));
  });
}

}  // namespace

void find_change_points(HistoryModel& model, const ChangePointOptions& options) {
  model.change_points = options;
  for (HistorySeries& s : model.series) {
    std::vector<double> x;
    double scale = 0;
    for (const HistoryPoint& p : s.points) {
      x.push_back(mean(p.stats.values));
      scale = std::max(scale, std::fabs(x.back()));
    }
    const CountThreshold& same = model.info.threshold;
    if (model.info.kind == MetricKind::kCount && exact_count(s, same)) {
      s.change_kind = ChangeKind::kCountStep;
      s.change_points = count_change_points(x, same);
      continue;
    }
    ChangePointOptions o = options;
    if (model.info.kind == MetricKind::kCount)
      o.min_magnitude = scale > 0 ? same.of(scale) / scale : 0;
    s.change_kind = ChangeKind::kMeanShift;
    s.change_points = mean_shift_change_points(x, o);
  }
}

namespace {

int gate_gravity(const std::string& outcome) {
  static const char* const kOrder[] = {"skip", "pass", "known", "flaky", "INFRA", "FAIL"};
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i) {
    if (outcome == kOrder[i]) return i;
  }
  return -1;
}

bool gate_case_takes(const IndexedGateCase& c, const HistorySeries& s) {
  for (auto [given, own] : {std::pair{&c.kernel, &s.kernel},
                            {&c.arch, &s.arch},
                            {&c.knobs, &s.knob_set},
                            {&c.workload, &s.workload}}) {
    if (!given->empty() && *given != *own) return false;
  }
  return true;
}

}  // namespace

void attach_gate_cases(HistoryModel& model, const std::vector<IndexedGateCase>& cases) {
  std::map<std::string, std::vector<const IndexedGateCase*>> by_session;
  for (const IndexedGateCase& c : cases) {
    if (c.metric == model.metric) by_session[c.session].push_back(&c);
  }
  for (HistorySeries& s : model.series) {
    for (HistoryPoint& p : s.points) {
      auto it = by_session.find(p.session);
      if (it == by_session.end()) continue;
      for (const IndexedGateCase* c : it->second) {
        if (gate_case_takes(*c, s) && gate_gravity(c->outcome) > gate_gravity(p.gate)) {
          p.gate = c->outcome;
          p.gate_baseline = c->baseline;
        }
      }
    }
  }
}

ChangePointBisect change_point_bisect(const HistoryModel& model, const HistorySeries& series,
                                      const ChangePoint& change) {
  ChangePointBisect b;
  b.metric = model.metric;
  b.experiment = series.experiment;
  const HistoryPoint& good = series.points.at(change.index - 1);
  const HistoryPoint& bad = series.points.at(change.index);
  b.good_session = good.session;
  b.bad_session = bad.session;
  b.good_session_dir = good.session_dir;
  b.bad_session_dir = bad.session_dir;
  b.selector.kernel = series.kernel;
  b.selector.arch = series.arch;
  b.selector.knobs = series.knob_set;
  b.selector.workload = series.workload;
  b.where = fmt::format("kernel={},arch={},knobs={},workload={}", series.kernel, series.arch,
                        series.knob_set, series.workload);
  return b;
}

Result<ChangePointBisect> find_change_point_bisect(const HistoryModel& model,
                                                   std::string_view session) {
  std::vector<ChangePointBisect> found;
  std::vector<std::string> all;
  for (const HistorySeries& s : model.series) {
    for (const ChangePoint& c : s.change_points) {
      const HistoryPoint& after = s.points.at(c.index);
      all.push_back(fmt::format("{} ({})", after.session, s.label));
      if (after.session == session || after.stamp == session) {
        found.push_back(change_point_bisect(model, s, c));
      }
    }
  }
  if (found.size() == 1) return found.front();
  if (all.empty()) return make_error(fmt::format("{}: no change points", model.metric));
  return make_error(fmt::format("{}: {} change points start at session {}; there are: {}",
                                model.metric, found.empty() ? "no" : "several", session,
                                fmt::join(all, ", ")));
}

}  // namespace foliolab
