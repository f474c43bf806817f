#include "report/history_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "report/cells.h"
#include "report/number_format.h"

namespace foliolab {
namespace {

std::string history_title(const HistoryModel& m) {
  std::string title = fmt::format("history of {}", m.metric);
  if (!m.info.unit.empty()) title += fmt::format(" ({})", m.info.unit);
  title +=
      fmt::format(" · {} · better: {}", metric_kind_name(m.info.kind), better_name(m.info.better));
  return title;
}

}  // namespace

Document layout_history(const HistoryModel& m) {
  Document doc;
  doc.preamble.push_back(history_title(m));
  for (const HistorySeries& s : m.series) {
    TextTable t;
    t.title = s.label;
    t.header = {"session", "n", "median", "mean ± sd", "95% CI of mean", "CV", "vs previous"};
    const bool gated = std::any_of(s.points.begin(), s.points.end(),
                                   [](const HistoryPoint& p) { return !p.gate.empty(); });
    if (gated) t.header.push_back("gate");
    bool emulated = false, icount = false;
    for (const HistoryPoint& p : s.points) {
      emulated = emulated || (p.emulated && !p.icount);
      icount = icount || p.icount;
      t.rows.push_back({p.stamp + (p.emulated ? "†" : ""), std::to_string(p.stats.n),
                        format_compact(p.stats.median), stats_mean_sd(p.stats),
                        mean_ci_cell(p.stats), format_percent(p.stats.cv),
                        p.delta ? format_change(p.delta->rel_change) + " " +
                                      std::string(verdict_name(p.delta->verdict))
                                : ""});
      if (gated) t.rows.back().push_back(p.gate);
    }
    if (emulated) t.notes.push_back("† TCG emulation timing");
    if (icount)
      t.notes.push_back(emulated ? "† of a session under icount: instruction-time (icount)"
                                 : "† instruction-time (icount)");
    doc.tables.push_back(std::move(t));
    if (!s.change_points.empty()) {
      TextTable c{.title = "change points of " + s.label, .header = change_point_header()};
      for (const ChangePoint& cp : s.change_points) c.rows.push_back(change_point_cells(s, cp));
      doc.tables.push_back(std::move(c));
    }
  }
  if (m.series.empty()) doc.preamble.push_back("(no indexed runs have this metric)");
  if (m.change_points) doc.preamble.push_back(change_point_summary(m));
  return doc;
}

std::string change_point_summary(const HistoryModel& m) {
  size_t found = 0, series = 0;
  bool counts = false, shifts = false;
  for (const HistorySeries& s : m.series) {
    found += s.change_points.size();
    series += !s.change_points.empty();
    (s.change_kind == ChangeKind::kCountStep ? counts : shifts) = true;
  }
  std::vector<std::string> rules;
  if (counts) rules.push_back("exact counts: every step beyond the threshold");
  if (shifts && m.change_points) {
    const ChangePointOptions& o = *m.change_points;
    rules.push_back(fmt::format(
        "means: t-test split/merge, p ≤ {}, ≥ {} sessions a side, change ≥ {}{}, windows of {}",
        o.max_p, o.min_segment, format_percent_g(o.min_magnitude),
        m.info.kind == MetricKind::kCount ? " (counts: their threshold)" : "", o.window));
  }
  const std::string rule = rules.empty() ? "" : fmt::format(" ({})", fmt::join(rules, "; "));
  if (found == 0) return "change points: none" + rule;
  return fmt::format("change points: {} in {} of {} series{}", found, series, m.series.size(),
                     rule);
}

std::vector<std::string> change_point_header() {
  return {"last before", "first after", "before", "after", "sessions", "change", "p"};
}

std::vector<std::string> change_point_cells(const HistorySeries& s, const ChangePoint& c) {
  const bool step = c.kind == ChangeKind::kCountStep;
  return {s.points.at(c.index - 1).stamp,
          s.points.at(c.index).stamp,
          format_compact(c.before),
          format_compact(c.after),
          fmt::format("{} | {}", c.n_before, c.n_after),
          std::isinf(c.magnitude) ? "from 0" : format_change(c.magnitude),
          step ? "exact" : format_p_cell(c.p)};
}

}  // namespace foliolab
