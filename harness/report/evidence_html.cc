#include "report/evidence_html.h"

#include <algorithm>

#include "report/evidence_layout.h"
#include "report/number_format.h"

namespace foliolab {
using json = nlohmann::json;

namespace {

constexpr const char* kEvidenceScript = R"js(
// A distribution's histogram: each variant's share of its values per bin, an outline in its
// color over shared bins (log-spaced when the page says so).
function histogram(parent, h, variants) {
  const W = 380, H = 170, left = 8, bins = h.fractions.length ? h.fractions[0].length : 0;
  const box = el('div', {class: 'plot'}, parent);
  el('div', {class: 'title', text: h.title}, box);
  const svg = el('svg:svg', {width: W, height: H, class: 'histogram'}, box);
  const x = i => left + i / Math.max(bins, 1) * (W - left - 10);
  const y = f => H - 28 - f / (h.peak || 1) * (H - 45);
  h.fractions.forEach((fr, v) => {
    const c = COLORS[v % COLORS.length], pts = [x(0) + ',' + y(0)];
    fr.forEach((f, i) => pts.push(x(i) + ',' + y(f), x(i + 1) + ',' + y(f)));
    pts.push(x(bins) + ',' + y(0));
    el('svg:polyline', {points: pts.join(' '), fill: c, 'fill-opacity': 0.12, stroke: c,
                        class: 'bins'}, svg);
    el('svg:text', {x: W - 10, y: 12 + 12 * v, text: h.legend[v], fill: c, 'text-anchor': 'end'}, svg);
  });
  el('svg:text', {x: left, y: H - 10, text: h.lo_text}, svg);
  el('svg:text', {x: W - 10, y: H - 10, text: h.hi_text, 'text-anchor': 'end'}, svg);
}
// The group's kernel evidence: the ranked rows, the quantiles and the census as tables, then a
// histogram per distribution.
function drawEvidence(parent, g) {
  const e = g.evidence_page;
  if (!e || !e.tables.length) return;
  el('h3', {text: 'kernel evidence'}, parent);
  e.tables.forEach(t => {
    el('div', {class: 'title', text: t.title}, parent);
    table(parent, t.header, t.rows).classList.add('evidence');
    if (t.notes.length) el('p', {class: 'note', text: t.notes.join('; ')}, parent);
  });
  if (!e.histograms.length) return;
  const box = el('div', {class: 'plots'}, parent);
  e.histograms.forEach(h => histogram(box, h, g.variants));
}
)js";

json histogram_json(const DistributionPlot& p, const ComparisonGroup& g) {
  double peak = 0;
  for (const auto& f : p.fractions) {
    for (double x : f) peak = std::max(peak, x);
  }
  const bool log = p.edges.size() > 2 && p.edges.front() > 0 &&
                   p.edges[1] - p.edges[0] < p.edges.back() - p.edges[p.edges.size() - 2];
  json legend = json::array();
  for (size_t v = 0; v < p.quantiles.size() && v < g.variants.size(); ++v) {
    legend.push_back(g.variants[v].label + ": p50 " + format_compact(p.quantiles[v][0]) + ", p99 " +
                     format_compact(p.quantiles[v][2]) + ", n " +
                     format_compact(static_cast<double>(p.counts[v])));
  }
  const std::string unit = p.unit.empty() ? "" : " " + p.unit;
  return {{"title", p.metric + (unit.empty() ? "" : " (" + p.unit + ")")},
          {"fractions", p.fractions},
          {"peak", peak},
          {"legend", legend},
          {"lo_text", format_compact(p.edges.front()) + unit},
          {"hi_text", format_compact(p.edges.back()) + unit + (log ? " (log bins)" : "")}};
}

}  // namespace

json evidence_page_data(const ComparisonGroup& g) {
  json tables = json::array(), histograms = json::array();
  for (const TextTable& t : evidence_tables(g)) {
    tables.push_back(
        {{"title", t.title}, {"header", t.header}, {"rows", t.rows}, {"notes", t.notes}});
  }
  for (const DistributionPlot& p : g.evidence.plots) histograms.push_back(histogram_json(p, g));
  return {{"tables", tables}, {"histograms", histograms}};
}

const char* evidence_script() { return kEvidenceScript; }

}  // namespace foliolab
