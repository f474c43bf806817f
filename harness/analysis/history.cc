#include "analysis/history.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/number_format.h"

namespace foliolab {
using json = nlohmann::json;

HistoryModel build_history(const std::string& metric, const std::vector<IndexedSample>& samples,
                           const MetricDecls& declared) {
  HistoryModel m;
  m.metric = metric;
  m.info = metric_info(metric, declared);
  std::map<std::string, size_t> series_of;
  // samples arrive oldest session first: points stay in order.
  std::map<std::pair<size_t, std::string>, std::vector<double>> values;
  std::map<std::pair<size_t, std::string>, bool> emulated;
  for (const IndexedSample& s : samples) {
    const IndexedRun& r = s.run;
    const std::string label =
        fmt::format("{} · {} · {} · {}", r.kernel, r.arch, r.knob_set, r.workload);
    auto [it, added] = series_of.emplace(label, m.series.size());
    if (added) m.series.push_back({label, {}});
    HistorySeries& series = m.series[it->second];
    if (series.points.empty() || series.points.back().session != r.session) {
      series.points.push_back({r.session, r.stamp, {}, false});
    }
    values[{it->second, r.session}].push_back(s.value);
    emulated[{it->second, r.session}] = emulated[{it->second, r.session}] || r.timings_emulated;
  }
  for (size_t i = 0; i < m.series.size(); ++i) {
    for (HistoryPoint& p : m.series[i].points) {
      p.stats = sample_stats(values[{i, p.session}]);
      p.emulated = emulated[{i, p.session}] && m.info.kind == MetricKind::kTiming;
    }
  }
  return m;
}

namespace {

std::string ci_cell(const SampleStats& s) {
  if (!std::isfinite(s.ci_low)) return "n/a";
  return format_compact(s.ci_low) + " … " + format_compact(s.ci_high);
}

Document layout_history(const HistoryModel& m) {
  Document doc;
  std::string title = fmt::format("history of {}", m.metric);
  if (!m.info.unit.empty()) title += fmt::format(" ({})", m.info.unit);
  title += fmt::format(" · {} · better: {}", metric_kind_name(m.info.kind),
                       better_name(m.info.better));
  doc.preamble.push_back(title);
  for (const HistorySeries& s : m.series) {
    TextTable t;
    t.title = s.label;
    t.header = {"session", "n", "median", "mean ± sd", "95% CI of mean", "CV"};
    bool emulated = false;
    for (const HistoryPoint& p : s.points) {
      emulated = emulated || p.emulated;
      t.rows.push_back({p.stamp + (p.emulated ? "†" : ""), std::to_string(p.stats.n),
                        format_compact(p.stats.median), stats_mean_sd(p.stats), ci_cell(p.stats),
                        std::isfinite(p.stats.cv) ? fmt::format("{:.1f} %", p.stats.cv * 100)
                                                  : "n/a"});
    }
    if (emulated) t.notes.push_back("† TCG emulation timing");
    doc.tables.push_back(std::move(t));
  }
  if (m.series.empty()) doc.preamble.push_back("(no indexed runs have this metric)");
  return doc;
}

}  // namespace

void render_history(const HistoryModel& m, Format format, std::ostream& out) {
  switch (format) {
    case Format::kText:
      render_text(layout_history(m), out);
      return;
    case Format::kMarkdown:
      render_markdown(layout_history(m), out);
      return;
    case Format::kCsv: {
      std::vector<std::vector<std::string>> rows;
      for (const HistorySeries& s : m.series) {
        for (const HistoryPoint& p : s.points) {
          auto num = [](double x) { return std::isfinite(x) ? fmt::format("{}", x) : ""; };
          rows.push_back({m.metric, s.label, p.session, p.stamp, std::to_string(p.stats.n),
                          num(p.stats.median), num(p.stats.mean), num(p.stats.sd),
                          num(p.stats.ci_low), num(p.stats.ci_high), p.emulated ? "1" : "0"});
        }
      }
      render_csv({"metric", "series", "session", "stamp", "n", "median", "mean", "sd",
                  "ci95_low", "ci95_high", "emulated"},
                 rows, out);
      return;
    }
    case Format::kJson: {
      json series = json::array();
      for (const HistorySeries& s : m.series) {
        json points = json::array();
        for (const HistoryPoint& p : s.points) {
          points.push_back({{"session", p.session},
                            {"stamp", p.stamp},
                            {"n", p.stats.n},
                            {"median", number_json(p.stats.median)},
                            {"mean", number_json(p.stats.mean)},
                            {"sd", number_json(p.stats.sd)},
                            {"ci95", {number_json(p.stats.ci_low), number_json(p.stats.ci_high)}},
                            {"emulated", p.emulated}});
        }
        series.push_back({{"label", s.label}, {"points", points}});
      }
      out << json{{"schema", kHistorySchema},
                  {"metric", m.metric},
                  {"unit", m.info.unit},
                  {"better", better_name(m.info.better)},
                  {"kind", metric_kind_name(m.info.kind)},
                  {"series", series}}
                 .dump(2)
          << "\n";
      return;
    }
  }
}

}  // namespace foliolab
