#include "report/html.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "report/cells.h"
#include "report/evidence_html.h"
#include "report/history_layout.h"
#include "report/json.h"
#include "report/number_format.h"

namespace foliolab {
using json = nlohmann::json;

namespace {

// JSON inside <script>: "</" would end the element early.
std::string script_safe(const std::string& json_text) {
  std::string out;
  for (size_t i = 0; i < json_text.size(); ++i) {
    if (json_text[i] == '<') {
      out += "\\u003c";
    } else {
      out += json_text[i];
    }
  }
  return out;
}

constexpr const char* kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;
text-align:right;font-variant-numeric:tabular-nums}th:first-child,td:first-child{text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:12px}.plot{border:1px solid #eee;padding:4px}
.plot .title{font-weight:600;font-size:12px}.emu{color:#a60;font-size:11px}
.warn{color:#a60}.verdict-regressed{color:#b00}.verdict-improved{color:#070}
pre{background:#f6f6f6;padding:.6em;overflow:auto}
svg text{font-size:10px;fill:#444}
)css";

// Draws every plot from DATA; sets data-plots/data-marks on <body> when done.
constexpr const char* kScript = R"js(
'use strict';
window.addEventListener('error', e => { document.body.dataset.error = String(e.message); });
const NS = 'http://www.w3.org/2000/svg';
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2',
                '#17becf', '#7f7f7f', '#bcbd22'];
let plots = 0, marks = 0, changepoints = 0, monitors = 0, gates = 0;
function el(tag, attrs, parent) {
  const e = tag.startsWith('svg:') ? document.createElementNS(NS, tag.slice(4))
                                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}
function scale(lo, hi, a, b) {
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.08;
  lo -= pad; hi += pad;
  return v => a + (v - lo) / (hi - lo) * (b - a);
}
// One row per variant: its values as dots, its 95 % CI of the mean as a bar (from zero at the
// lowest for a metric that cannot be negative), the median tick. Numbers come written
// (row.plot.*_text, stats[].text): the page formats none.
function dotPlot(parent, row, variants) {
  const W = 350, rowH = 22, left = 115, H = 24 + rowH * row.stats.length;
  const box = el('div', {class: 'plot'}, parent);
  el('div', {class: 'title', text: row.metric + (row.unit ? ' (' + row.unit + ')' : '')}, box);
  if (row.emulated) el('div', {class: 'emu', text: row.icount ? 'instruction-time (icount)' : 'emulated timing (TCG)'}, box);
  const p = row.plot;
  const x = scale(p.lo, p.hi, left, W - 10);
  const svg = el('svg:svg', {width: W, height: H, class: 'dotplot'}, box);
  plots++;
  row.stats.forEach((s, i) => {
    const y = 14 + i * rowH, c = COLORS[i % COLORS.length];
    el('svg:text', {x: 2, y: y + 4, text: variants[i].label}, svg);
    const ci = p.ci[i];
    if (ci) {
      el('svg:line', {x1: x(ci[0]), x2: x(ci[1]), y1: y, y2: y, stroke: c,
                      'stroke-width': 3, opacity: 0.35, class: 'ci'}, svg);
    }
    if (s.median !== null) {
      el('svg:line', {x1: x(s.median), x2: x(s.median), y1: y - 7, y2: y + 7, stroke: c,
                      class: 'median'}, svg);
    }
    s.values.forEach(v => {
      el('svg:circle', {cx: x(v), cy: y, r: 3, fill: c, 'fill-opacity': 0.7, class: 'mark'}, svg);
      marks++;
    });
  });
  const axis = H - 4;
  if (p.lo_text === p.hi_text) {  // one value throughout: one label, under it
    el('svg:text', {x: x(p.lo), y: axis, text: p.lo_text, 'text-anchor': 'middle'}, svg);
  } else {
    el('svg:text', {x: left, y: axis, text: p.lo_text}, svg);
    el('svg:text', {x: W - 10, y: axis, text: p.hi_text, 'text-anchor': 'end'}, svg);
  }
}
// Per-size mTHP allocation counts (mean per repetition), a bar per variant and size.
function sizeBars(parent, group) {
  const rows = group.metrics.filter(r => /^mthp\.\d+kB\.(anon_fault_alloc|shmem_alloc)$/.test(r.metric));
  if (!rows.length) return;
  const kb = r => parseInt(r.metric.split('.')[1]);
  rows.sort((a, b) => kb(a) - kb(b) || a.metric.localeCompare(b.metric));
  el('h3', {text: 'mTHP allocations per size (mean per repetition)'}, parent);
  const nv = group.variants.length, bw = 10, gap = 14;
  const W = 60 + rows.length * (nv * bw + gap), H = 170;
  const svg = el('svg:svg', {width: W, height: H, class: 'sizebars'}, parent);
  plots++;
  let max = 1, maxText = '1';
  rows.forEach(r => r.stats.forEach(s => {
    if ((s.mean || 0) > max) { max = s.mean; maxText = s.mean_text; }
  }));
  rows.forEach((r, j) => {
    const x0 = 50 + j * (nv * bw + gap);
    r.stats.forEach((s, i) => {
      const h = (s.mean || 0) / max * (H - 50);
      el('svg:rect', {x: x0 + i * bw, y: H - 35 - h, width: bw - 1, height: h,
                      fill: COLORS[i % COLORS.length], class: 'mark bar'}, svg);
      marks++;
    });
    el('svg:text', {x: x0, y: H - 22, text: r.metric.split('.')[1]}, svg);
    el('svg:text', {x: x0, y: H - 10, text: r.metric.split('.')[2].replace('_alloc', '')}, svg);
  });
  el('svg:text', {x: 2, y: 12, text: maxText}, svg);
  const legend = el('div', {}, parent);
  group.variants.forEach((v, i) => {
    el('span', {text: '■ ' + v.label + '  ', style: 'color:' + COLORS[i % COLORS.length]}, legend);
  });
}
// One monitored counter over each rep's time: a line per rep, colored by variant.
function monitorPlot(parent, m, variants) {
  const W = 520, H = 200, left = 60;
  const box = el('div', {class: 'plot monitor'}, parent);
  el('div', {class: 'title', text: m.counter + ' during each repetition (ms)'}, box);
  const svg = el('svg:svg', {width: W, height: H, class: 'timeseries'}, box);
  plots++;
  const x = scale(m.t_lo, m.t_hi, left, W - 10), y = scale(m.v_lo, m.v_hi, H - 30, 10);
  m.traces.forEach(t => {
    el('svg:polyline', {points: t.t.map((ms, i) => x(ms) + ',' + y(t.v[i])).join(' '),
                        fill: 'none', stroke: COLORS[t.variant % COLORS.length], opacity: 0.7,
                        class: 'trace'}, svg);
    monitors++;
  });
  el('svg:text', {x: 2, y: 14, text: m.v_hi_text}, svg);
  el('svg:text', {x: 2, y: H - 30, text: m.v_lo_text}, svg);
  el('svg:text', {x: left, y: H - 8, text: m.t_lo_text}, svg);
  el('svg:text', {x: W - 10, y: H - 8, text: m.t_hi_text, 'text-anchor': 'end'}, svg);
  const legend = el('div', {}, box);
  variants.forEach((v, i) => {
    el('span', {text: '― ' + v.label + '  ', style: 'color:' + COLORS[i % COLORS.length]}, legend);
  });
}
function table(parent, header, rows) {
  const t = el('table', {}, parent);
  const tr = el('tr', {}, t);
  header.forEach(h => el('th', {text: h}, tr));
  rows.forEach(r => { const row = el('tr', {}, t); r.forEach(c => el('td', {text: c}, row)); });
  return t;
}
function drawComparison(data, root) {
  data.groups.forEach(g => {
    const sec = el('section', {class: 'group'}, root);
    el('h2', {text: g.title}, sec);
    if (g.warnings.length) el('p', {class: 'warn', text: '⚠ ' + g.warnings.join('; ')}, sec);
    const workload = g.metrics.filter(r => !r.evidence && !/^(vmstat|mthp|meminfo)\./.test(r.metric));
    const counters = g.metrics.filter(r => /^(vmstat|mthp|meminfo)\./.test(r.metric));
    el('h3', {text: 'metrics (dots: repetitions; bar: 95 % CI of the mean; tick: median)'}, sec);
    const box = el('div', {class: 'plots'}, sec);
    workload.forEach(r => dotPlot(box, r, g.variants));
    sizeBars(sec, g);
    if (g.monitors && g.monitors.length) {
      el('h3', {text: 'monitor: counters during each repetition'}, sec);
      const mbox = el('div', {class: 'plots'}, sec);
      g.monitors.forEach(m => monitorPlot(mbox, m, g.variants));
    }
    if (counters.length) {
      el('h3', {text: 'counter deltas per repetition (mean ± sd)'}, sec);
      const verdicts = g.variants.length > 1 ? ['verdict'] : [];  // none for one variant
      table(sec, ['counter'].concat(g.variants.map(v => v.label)).concat(verdicts),
            counters.map(r => [r.metric].concat(r.stats.map(s => s.text))
                              .concat(verdicts.length ? [r.vs_first.slice(1).map(d => d ? d.verdict : '').join(', ')] : [])));
    }
    drawEvidence(sec, g);
    const changes = [];
    g.metrics.forEach(r => r.vs_first.forEach((d, i) => {
      if (!d || r.evidence) return;
      changes.push([r.metric, g.variants[i].label, d.text.change, d.text.ci, d.text.p_mw,
                    d.text.p_welch, d.verdict]);
    }));
    if (changes.length) {  // a one-variant group has nothing to compare
      el('h3', {text: 'changes against ' + g.variants[0].label}, sec);
      table(sec, ['metric', 'variant', 'change', '95 % CI', 'p (MW)', 'p (Welch)', 'verdict'],
            changes);
    }
    el('h3', {text: 'knob state (as set)'}, sec);
    const paths = [...new Set(g.variants.flatMap(v => v.knobs_set.map(k => k[0])))];
    table(sec, ['knob'].concat(g.variants.map(v => v.label)),
          paths.map(p => [p].concat(g.variants.map(v => (v.knobs_set.find(k => k[0] === p) || ['', '-'])[1]))));
    el('h3', {text: 'provenance'}, sec);
    table(sec, ['variant', 'accel', 'kernel build', 'kernel', 'emulator', 'host', 'runs'],
          g.variants.map(v => [v.label, v.accel, v.kernel_build_id, v.guest_release || v.kernel_version,
                               v.emulator, v.host, v.runs.join(' ')]));
  });
}
function drawHistory(data, root) {
  el('h2', {text: data.metric + (data.unit ? ' (' + data.unit + ')' : '') + ' across sessions'}, root);
  if (data.change_point_summary) el('p', {class: 'summary', text: data.change_point_summary}, root);
  const box = el('div', {class: 'plots'}, root);
  data.series.forEach((s, k) => {
    const W = 520, H = 200, left = 60;
    const plot = el('div', {class: 'plot'}, box);
    el('div', {class: 'title', text: s.label}, plot);
    if (s.axis.lo === null) return;
    const y = scale(s.axis.lo, s.axis.hi, H - 30, 10);
    const x = i => left + (s.points.length > 1 ? i / (s.points.length - 1) : 0.5) * (W - left - 20);
    const svg = el('svg:svg', {width: W, height: H, class: 'trend'}, plot);
    plots++;
    const c = COLORS[k % COLORS.length];
    // Each point at its own session's place (a session without a mean leaves a gap, not a shift).
    el('svg:polyline', {points: s.points.map((p, i) => p.mean === null ? null : x(i) + ',' + y(p.mean))
                                         .filter(q => q !== null).join(' '),
                        fill: 'none', stroke: c, opacity: 0.5}, svg);
    s.points.forEach((p, i) => {
      if (p.mean === null) return;
      if (p.ci_plot) {
        el('svg:line', {x1: x(i), x2: x(i), y1: y(p.ci_plot[0]), y2: y(p.ci_plot[1]), stroke: c, class: 'ci'}, svg);
      }
      el('svg:circle', {cx: x(i), cy: y(p.mean), r: 3.5, fill: c, class: 'mark'}, svg);
      marks++;
      // The gate's verdict on this session: a ring, red for a failure, green for a pass.
      if (p.gate) {
        const ring = p.gate === 'FAIL' || p.gate === 'INFRA' ? '#b00' : p.gate === 'pass' ? '#080' : '#c80';
        el('svg:circle', {cx: x(i), cy: y(p.mean), r: 7, fill: 'none', stroke: ring, 'stroke-width': 2,
                          class: 'gate gate-' + p.gate.toLowerCase()}, svg)
          .appendChild(el('svg:title', {text: 'gate: ' + p.gate + ' against ' + p.gate_baseline}));
        gates++;
      }
      el('svg:text', {x: x(i) - 20, y: H - 8, text: p.stamp.slice(0, 8)}, svg);
    });
    el('svg:text', {x: 2, y: 14, text: s.axis.hi_text}, svg);
    el('svg:text', {x: 2, y: H - 30, text: s.axis.lo_text}, svg);
    if (s.points.some(p => p.emulated)) {
      const icount = s.points.every(p => !p.emulated || p.icount);
      el('div', {class: 'emu', text: icount ? 'instruction-time (icount)' : 'emulated timings (TCG)'}, plot);
    }
    // A change point: a dashed line between its last session before and its first after.
    const cps = s.change_points || [];
    cps.forEach(c => {
      el('svg:line', {x1: x(c.index - 0.5), x2: x(c.index - 0.5), y1: 4, y2: H - 22,
                      stroke: '#b00', 'stroke-dasharray': '4 3', class: 'changepoint'}, svg);
      changepoints++;
    });
    if (cps.length) {
      el('div', {class: 'title', text: 'change points'}, plot);
      table(plot, data.change_point_header, cps.map(c => c.cells)).classList.add('changepoints');
    }
  });
}
const DATA = JSON.parse(document.getElementById('data').textContent);
const root = document.getElementById('root');
if (DATA.series) drawHistory(DATA, root); else drawComparison(DATA, root);
document.body.dataset.plots = plots;
document.body.dataset.marks = marks;
document.body.dataset.changepoints = changepoints;
document.body.dataset.monitors = monitors;
document.body.dataset.gates = gates;
document.body.dataset.histograms = document.querySelectorAll('svg.histogram').length;
)js";

// Whether a metric cannot be negative, so that a CI reaching below zero is drawn from zero:
// timings, workload counts (faults, pages, kB) and event counters. Not the deltas of gauges
// (meminfo.*, nr_* counters), which fall as often as they rise, not a metric guessed from its
// name, and nothing that was seen below zero.
bool non_negative(const std::string& metric, const MetricInfo& info,
                  const std::vector<const SampleStats*>& stats) {
  for (const SampleStats* s : stats) {
    if (std::any_of(s->values.begin(), s->values.end(), [](double x) { return x < 0; })) {
      return false;
    }
  }
  if (info.kind == MetricKind::kTiming) return true;
  if (metric.starts_with("meminfo.")) return false;
  if (is_counter(metric)) return !metric.substr(metric.rfind('.') + 1).starts_with("nr_");
  return info.known;
}

// The ends of a plot's axis, and their labels as the tables write numbers (16.4k, 0.0931).
struct Extent {
  double lo = INFINITY, hi = -INFINITY;
  void add(double x) {
    if (!std::isfinite(x)) return;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  json to_json() const {
    return {{"lo", number_json(lo)},
            {"hi", number_json(hi)},
            {"lo_text", format_compact(lo)},
            {"hi_text", format_compact(hi)}};
  }
};

// A variant's 95 % CI of the mean as drawn: from zero at the lowest when `clip`; null when
// there is none. Widens `e` to hold it.
json plotted_ci(const SampleStats& s, bool clip, Extent* e) {
  if (!std::isfinite(s.ci_low) || !std::isfinite(s.ci_high)) return json();
  const double lo = clip ? std::max(0.0, s.ci_low) : s.ci_low;
  e->add(lo);
  e->add(s.ci_high);
  return json::array({lo, s.ci_high});
}

// What the dot plot of one metric draws: each variant's CI, the axis ends and their labels.
json plot_json(const MetricRow& r) {
  std::vector<const SampleStats*> all;
  for (const SampleStats& s : r.stats) all.push_back(&s);
  const bool clip = non_negative(r.metric, r.info, all);
  Extent e;
  json cis = json::array();
  for (const SampleStats& s : r.stats) {
    for (double x : s.values) e.add(x);
    cis.push_back(plotted_ci(s, clip, &e));
  }
  json plot = e.to_json();
  plot["ci"] = std::move(cis);
  plot["nonnegative"] = clip;
  return plot;
}

// A monitor plot's traces and its axes (time in ms, the counter's values), labels written here.
json monitor_json(const MonitorPlot& m) {
  Extent t, v;
  json traces = json::array();
  for (const MonitorTrace& tr : m.traces) {
    for (int64_t ms : tr.t_ms) t.add(static_cast<double>(ms));
    for (int64_t x : tr.values) v.add(static_cast<double>(x));
    traces.push_back(
        {{"label", tr.label}, {"variant", tr.variant}, {"t", tr.t_ms}, {"v", tr.values}});
  }
  const json ta = t.to_json(), va = v.to_json();
  return {{"counter", m.counter},       {"traces", traces},           {"t_lo", ta["lo"]},
          {"t_hi", ta["hi"]},           {"v_lo", va["lo"]},           {"v_hi", va["hi"]},
          {"t_lo_text", ta["lo_text"]}, {"t_hi_text", ta["hi_text"]}, {"v_lo_text", va["lo_text"]},
          {"v_hi_text", va["hi_text"]}};
}

// The page's data: the JSON model, and beside it every number the page prints as
// report/number_format writes it, so that the page formats nothing itself.
json comparison_page_data(const ComparisonModel& model) {
  json data = comparison_json(model);
  for (size_t gi = 0; gi < model.groups.size(); ++gi) {
    const ComparisonGroup& g = model.groups[gi];
    json monitors = json::array();
    for (const MonitorPlot& m : g.monitors) monitors.push_back(monitor_json(m));
    data["groups"][gi]["monitors"] = std::move(monitors);
    data["groups"][gi]["evidence_page"] = evidence_page_data(g);
    for (size_t ri = 0; ri < g.rows.size(); ++ri) {
      const MetricRow& r = g.rows[ri];
      json& row = data["groups"][gi]["metrics"][ri];
      row["plot"] = plot_json(r);
      for (size_t v = 0; v < r.stats.size(); ++v) {
        row["stats"][v]["text"] = stats_mean_sd(r.stats[v]);
        row["stats"][v]["mean_text"] = format_compact(r.stats[v].mean);
      }
      for (size_t v = 0; v < r.deltas.size(); ++v) {
        if (!r.deltas[v]) continue;
        const Delta& d = *r.deltas[v];
        row["vs_first"][v]["text"] = {{"change", format_change(d.rel_change)},
                                      {"ci", ci_text(d)},
                                      {"p_mw", p_cell(d, d.mann_whitney_p)},
                                      {"p_welch", p_cell(d, d.welch_p)}};
      }
    }
  }
  return data;
}

json history_page_data(const HistoryModel& m) {
  json data = history_json(m);
  for (size_t si = 0; si < m.series.size(); ++si) {
    const HistorySeries& s = m.series[si];
    std::vector<const SampleStats*> all;
    for (const HistoryPoint& p : s.points) all.push_back(&p.stats);
    const bool clip = non_negative(m.metric, m.info, all);
    Extent e;
    for (size_t pi = 0; pi < s.points.size(); ++pi) {
      e.add(s.points[pi].stats.mean);
      data["series"][si]["points"][pi]["ci_plot"] = plotted_ci(s.points[pi].stats, clip, &e);
    }
    data["series"][si]["axis"] = e.to_json();
    for (size_t ci = 0; ci < s.change_points.size(); ++ci) {
      data["series"][si]["change_points"][ci]["cells"] = change_point_cells(s, s.change_points[ci]);
    }
  }
  if (m.change_points) {
    data["change_point_header"] = change_point_header();
    data["change_point_summary"] = change_point_summary(m);
  }
  return data;
}

void page(const std::string& title, const json& data, const std::vector<std::string>& extra,
          std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  for (char c : title)
    out << (c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c));
  out << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n<h1 id=\"title\"></h1>\n"
      << "<div id=\"root\"></div>\n<pre id=\"extra\"></pre>\n"
      << "<script type=\"application/json\" id=\"data\">" << script_safe(data.dump())
      << "</script>\n"
      << "<script type=\"application/json\" id=\"extra-data\">" << script_safe(json(extra).dump())
      << "</script>\n<script>\n"
      << "document.getElementById('title').textContent = " << script_safe(json(title).dump())
      << ";\n"
      << "document.getElementById('extra').textContent = "
         "JSON.parse(document.getElementById('extra-data').textContent).join('\\n');\n"
      << kScript << evidence_script() << "</script>\n</body></html>\n";
}

}  // namespace

void write_html(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out) {
  page(model.title.empty() ? "foliolab " + model.kind : model.title, comparison_page_data(model),
       extra, out);
}

void write_html(const HistoryModel& model, std::ostream& out) {
  page("foliolab history: " + model.metric, history_page_data(model), {}, out);
}

}  // namespace foliolab
