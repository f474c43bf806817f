#include "report/csv.h"

#include "report/gate_layout.h"
#include "report/number_format.h"

namespace foliolab {
namespace {

// One row of the comparison table: a variant of a metric of a group.
std::vector<std::string> comparison_row(const ComparisonGroup& g, const MetricRow& r, size_t v) {
  const SampleStats& s = r.stats[v];
  std::vector<std::string> row = {g.title,
                                  g.kernel,
                                  g.arch,
                                  g.workload,
                                  g.variants[v].label,
                                  r.metric,
                                  r.info.unit,
                                  std::string(metric_kind_name(r.info.kind)),
                                  r.emulated ? "1" : "0",
                                  std::to_string(s.n),
                                  format_full(s.median),
                                  format_full(s.mean),
                                  format_full(s.sd),
                                  format_full(s.cv)};
  if (v < r.deltas.size() && r.deltas[v]) {
    const Delta& d = *r.deltas[v];
    for (double x : {d.rel_change, d.ci_low, d.ci_high, d.mann_whitney_p, d.welch_p}) {
      row.push_back(format_full(x));
    }
    row.push_back(std::string(verdict_name(d.verdict)));
  } else {
    row.insert(row.end(), 6, "");
  }
  return row;
}

}  // namespace

void render_csv(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  auto field = [](const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << field(cells[i]);
    out << "\r\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

void write_csv(const ComparisonModel& model, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  for (const ComparisonGroup& g : model.groups) {
    for (const MetricRow& r : g.rows) {
      for (size_t v = 0; v < r.stats.size(); ++v) rows.push_back(comparison_row(g, r, v));
    }
  }
  render_csv({"group",      "kernel",   "arch",      "workload",       "variant", "metric", "unit",
              "kind",       "emulated", "n",         "median",         "mean",    "sd",     "cv",
              "rel_change", "ci95_low", "ci95_high", "mann_whitney_p", "welch_p", "verdict"},
             rows, out);
}

void write_csv(const GateReport& r, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  for (const GateCase& c : r.cases) {
    rows.push_back(
        {c.rule, c.group, c.metric, std::string(gate_outcome_name(c.outcome)), gate_message(c)});
  }
  render_csv({"rule", "group", "metric", "outcome", "message"}, rows, out);
}

void write_csv(const HistoryModel& m, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  for (const HistorySeries& s : m.series) {
    for (const HistoryPoint& p : s.points) {
      rows.push_back({m.metric, s.label, p.session, p.stamp, std::to_string(p.stats.n),
                      format_full(p.stats.median), format_full(p.stats.mean),
                      format_full(p.stats.sd), format_full(p.stats.ci_low),
                      format_full(p.stats.ci_high), p.emulated ? "1" : "0"});
    }
  }
  render_csv({"metric", "series", "session", "stamp", "n", "median", "mean", "sd", "ci95_low",
              "ci95_high", "emulated"},
             rows, out);
}

}  // namespace foliolab
