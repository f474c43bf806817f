#include "report/regression.h"

#include <fmt/format.h>

#include <cmath>

#include "report/cells.h"
#include "report/json.h"
#include "report/markdown.h"
#include "report/number_format.h"
#include "report/text.h"
#include "util/text.h"

namespace foliolab {
using json = nlohmann::json;
namespace {

std::string pairs_text(const KeyValues& kv) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : kv) parts.push_back(k + "=" + v);
  return join(parts, " ");
}

// "1,025 ±0.5 %": the mean and the relative standard deviation, as 0-day's tables show them.
std::string mean_sd_cell(const SampleStats& s) {
  if (s.n == 0) return "n/a";
  const double rel = s.mean != 0 && std::isfinite(s.sd) ? s.sd / std::fabs(s.mean) : 0;
  return fmt::format("{} ±{}", format_compact(s.mean), format_percent(rel));
}

std::string change_cell(const std::optional<Delta>& d) {
  if (!d) return "";
  return std::isfinite(d->rel_change) ? format_change(d->rel_change)
                                      : (d->diff > 0 ? "+" : "") + format_compact(d->diff);
}

std::string verdict_cell(const std::optional<Delta>& d) {
  return d ? std::string(verdict_name(d->verdict)) : "";
}

// One table of rows: the metric, n, then per column its mean ±%sd and, after the first, the
// change and the verdict against the first.
TextTable rows_table(const RegressionReport& r, bool evidence, std::string title) {
  TextTable t{.title = std::move(title), .header = {"metric", "n"}};
  for (size_t c = 0; c < r.columns.size(); ++c) {
    t.header.push_back(r.columns[c].label);
    if (c > 0) t.header.insert(t.header.end(), {"change", "verdict"});
  }
  for (const RegressionRow& row : r.moved) {
    if (row.evidence != evidence) continue;
    std::vector<std::string> cells = {row.metric};
    std::string n;
    for (const SampleStats& s : row.stats) n += (n.empty() ? "" : "/") + std::to_string(s.n);
    cells.push_back(n);
    for (size_t c = 0; c < row.stats.size(); ++c) {
      cells.push_back(mean_sd_cell(row.stats[c]));
      if (c > 0)
        cells.insert(cells.end(), {change_cell(row.deltas[c]), verdict_cell(row.deltas[c])});
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::vector<std::string> head_lines(const RegressionReport& r) {
  const RegressionCell& c = r.cell;
  const RegressionMachine& m = r.machine;
  std::vector<std::string> out = {
      regression_headline(r), "origin:   " + r.origin,
      fmt::format("cell:     kernel {} · {} · knobs {}{} · workload {} ({})", c.kernel, c.arch,
                  c.knobs, c.knobs_set.empty() ? "" : " (" + pairs_text(c.knobs_set) + ")",
                  c.workload, pairs_text(c.params)),
      fmt::format("machine:  {} {}, timing {}, {} CPU, {} MiB; host {}; {}", m.backend, m.accel,
                  m.timing, m.cpus, m.memory_mb, m.host_cpu, m.emulator)};
  std::vector<std::string> kernels;
  for (const RegressionColumn& col : r.columns) {
    kernels.push_back(col.label + " " + (col.build_id.empty() ? "?" : col.build_id));
  }
  out.push_back("kernels:  " + join(kernels, ", "));
  for (size_t i = 0; i < r.fixes.size(); ++i) {
    out.push_back(fmt::format("fix:      {}: {} (against {})", r.columns[i + 2].label,
                              fix_verdict_name(r.fixes[i]), r.columns[0].label));
  }
  return out;
}

std::vector<std::string> tail_lines(const RegressionReport& r) {
  std::vector<std::string> out;
  out.push_back(
      fmt::format("did not move: {} more rows compared, within their thresholds", r.unchanged));
  if (!r.also_fails.empty()) out.push_back("also fails (the same change):");
  for (const std::string& f : r.also_fails) out.push_back("  " + f);
  if (r.config_diff.empty())
    out.push_back("config difference: none");
  else
    out.push_back("config difference (" + r.columns[0].label + " → culprit):");
  for (const std::string& d : r.config_diff) out.push_back("  " + d);
  if (!r.reproduce.empty()) out.push_back("reproduce: " + r.reproduce);
  return out;
}

json stats_j(const SampleStats& s) {
  return {
      {"n", s.n}, {"mean", number_json(s.mean)}, {"sd", number_json(s.sd)}, {"values", s.values}};
}

json delta_j(const std::optional<Delta>& d) {
  if (!d) return nullptr;
  return {{"rel_change", number_json(d->rel_change)}, {"ci_low", number_json(d->ci_low)},
          {"ci_high", number_json(d->ci_high)},       {"diff", number_json(d->diff)},
          {"verdict", verdict_name(d->verdict)},      {"basis", basis_name(d->basis)}};
}

json row_j(const RegressionRow& row) {
  json stats = json::array(), deltas = json::array();
  for (const SampleStats& s : row.stats) stats.push_back(stats_j(s));
  for (const auto& d : row.deltas) deltas.push_back(delta_j(d));
  return {{"metric", row.metric}, {"evidence", row.evidence}, {"stats", stats}, {"deltas", deltas}};
}

}  // namespace

std::string regression_headline(const RegressionReport& r) {
  const RegressionRow* h = r.headline();
  const std::string change =
      h && h->deltas.size() > 1 && h->deltas[1]
          ? fmt::format("{} ({})", delta_text(*h->deltas[1]), verdict_name(h->deltas[1]->verdict))
          : "did not move past its threshold";
  return fmt::format("{} {} on {}", r.metric, change,
                     r.culprit.empty() ? "kernels not bisected yet" : r.culprit);
}

Document layout_regression(const RegressionReport& r) {
  Document d;
  d.preamble = head_lines(r);
  d.tables.push_back(rows_table(
      r, false,
      fmt::format("{} vs {}: what moved past its threshold (the headline first, then by size)",
                  r.columns.size() > 1 ? r.columns[1].label : "?", r.columns[0].label)));
  TextTable ev = rows_table(r, true, "kernel evidence that moved (functions first, then by size)");
  if (!ev.rows.empty()) d.tables.push_back(std::move(ev));
  d.epilogue = tail_lines(r);
  return d;
}

json regression_json(const RegressionReport& r) {
  json cols = json::array(), rows = json::array();
  for (const RegressionColumn& c : r.columns)
    cols.push_back({{"label", c.label}, {"build_id", c.build_id}});
  for (const RegressionRow& row : r.moved) rows.push_back(row_j(row));
  json fixes = json::array();
  for (FixVerdict f : r.fixes) fixes.push_back(fix_verdict_name(f));
  const RegressionCell& c = r.cell;
  const RegressionMachine& m = r.machine;
  return {{"schema", kRegressionSchema},
          {"headline", regression_headline(r)},
          {"metric", r.metric},
          {"origin", r.origin},
          {"culprit", r.culprit},
          {"cell",
           {{"kernel", c.kernel},
            {"arch", c.arch},
            {"knobs", c.knobs},
            {"workload", c.workload},
            {"params", pairs_text(c.params)},
            {"knobs_set", pairs_text(c.knobs_set)}}},
          {"machine",
           {{"backend", m.backend},
            {"accel", m.accel},
            {"timing", m.timing},
            {"emulator", m.emulator},
            {"host_cpu", m.host_cpu},
            {"cpus", m.cpus},
            {"memory_mb", m.memory_mb}}},
          {"columns", cols},
          {"moved", rows},
          {"unchanged", r.unchanged},
          {"also_fails", r.also_fails},
          {"fixes", fixes},
          {"config_diff", r.config_diff},
          {"reproduce", {{"dir", r.reproduce_dir}, {"command", r.reproduce}}}};
}

void render_regression(const RegressionReport& r, Format format, std::ostream& out) {
  switch (format) {
    case Format::kText:
      return render_text(layout_regression(r), out);
    case Format::kMarkdown:
      return render_markdown(layout_regression(r), out);
    case Format::kCsv:
    case Format::kJson:
      out << regression_json(r).dump(2) << "\n";
      return;
  }
}

}  // namespace foliolab
