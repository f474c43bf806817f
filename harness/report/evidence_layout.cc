#include "report/evidence_layout.h"

#include <fmt/format.h>

#include <cmath>

#include "model/distribution.h"
#include "report/cells.h"
#include "report/number_format.h"

namespace foliolab {
namespace {

// A count in full ("16,422", "1,024.3"): evidence counts are exact and "16.4k" would hide the
// few hits a row moved by.
std::string count_cell(double x) {
  if (!std::isfinite(x)) return "n/a";
  return format_number(x, x == std::floor(x) ? 0 : 1);
}

// The ranked rows: metric, unit, each variant's median, then per later variant its change,
// interval and verdict against the first.
TextTable ranked_table(const ComparisonGroup& g) {
  TextTable t;
  t.title = "kernel evidence · " + g.title + " (largest change first)";
  t.key_columns = 2;
  t.header = {"metric", "unit"};
  for (const VariantInfo& v : g.variants) t.header.push_back(v.label);
  for (size_t v = 1; v < g.variants.size(); ++v) {
    const std::string vs = g.variants.size() == 2 ? "" : " " + g.variants[v].label;
    for (const char* h : {"change", "95% CI", "verdict"}) t.header.push_back(h + vs);
  }
  for (size_t i : g.evidence.ranked) {
    const MetricRow& row = g.rows[i];
    std::vector<std::string> cells = {metric_label(row), row.info.unit};
    const bool count = row.info.kind == MetricKind::kCount;
    for (const SampleStats& s : row.stats) {
      cells.push_back(count ? count_cell(s.median) : format_compact(s.median));
    }
    for (size_t v = 1; v < row.deltas.size(); ++v) {
      if (!row.deltas[v]) {
        cells.insert(cells.end(), {"", "", ""});
        continue;
      }
      const Delta& d = *row.deltas[v];
      cells.push_back(format_change(d.rel_change));
      cells.push_back(ci_text(d));
      cells.push_back(std::string(verdict_name(d.verdict)));
    }
    t.rows.push_back(std::move(cells));
  }
  t.notes.push_back(
      "values are medians over reps; counts: no change within 4 hits or 1 % (census kB: 64 kB "
      "or 1 %); quantiles: the timing rule at p <= 0.0125 each (docs/comparisons.md)");
  return t;
}

TextTable quantile_table(const ComparisonGroup& g) {
  TextTable t;
  t.title = "distributions · " + g.title + " (every rep pooled)";
  t.key_columns = 2;
  t.header = {"distribution", "variant", "values"};
  for (const DistributionQuantile& q : kDistributionQuantiles) t.header.emplace_back(q.suffix);
  for (const DistributionPlot& p : g.evidence.plots) {
    for (size_t v = 0; v < p.quantiles.size() && v < g.variants.size(); ++v) {
      std::vector<std::string> cells = {p.metric + (p.unit.empty() ? "" : " (" + p.unit + ")"),
                                        g.variants[v].label,
                                        count_cell(static_cast<double>(p.counts[v]))};
      for (double x : p.quantiles[v]) cells.push_back(p.counts[v] ? format_compact(x) : "n/a");
      t.rows.push_back(std::move(cells));
    }
  }
  t.notes.push_back("verdicts are on the per-rep quantiles, in the evidence table");
  return t;
}

TextTable census_table(const ComparisonGroup& g) {
  const CensusTable& c = g.evidence.census;
  TextTable t;
  t.title = "folio census · " + g.title + " (mean over reps)";
  t.key_columns = 2;
  t.header = {"kind", "size"};
  for (const std::string& what : c.whats) {
    for (const VariantInfo& v : g.variants) t.header.push_back(what + " " + v.label);
  }
  for (const CensusTable::Row& row : c.rows) {
    std::vector<std::string> cells = {row.kind, row.size};
    for (const std::vector<double>& per_variant : row.means) {
      for (double x : per_variant) cells.push_back(count_cell(x));
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

}  // namespace

std::vector<TextTable> evidence_tables(const ComparisonGroup& g) {
  std::vector<TextTable> out;
  if (!g.evidence.ranked.empty()) out.push_back(ranked_table(g));
  if (!g.evidence.plots.empty()) out.push_back(quantile_table(g));
  if (!g.evidence.census.rows.empty()) out.push_back(census_table(g));
  return out;
}

}  // namespace foliolab
