#include "report/html.h"

#include <nlohmann/json.hpp>

#include "report/json.h"

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
let plots = 0, marks = 0;
function el(tag, attrs, parent) {
  const e = tag.startsWith('svg:') ? document.createElementNS(NS, tag.slice(4))
                                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}
function fmt(x) {
  if (x === null || x === undefined || !isFinite(x)) return 'n/a';
  const a = Math.abs(x);
  if (a >= 1e4) return x.toExponential(2);
  return a >= 100 || Number.isInteger(x) ? x.toFixed(0) : x.toPrecision(4);
}
function scale(lo, hi, a, b) {
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.08;
  lo -= pad; hi += pad;
  return v => a + (v - lo) / (hi - lo) * (b - a);
}
// One row per variant: its values as dots, its 95 % CI of the mean as a bar, the median tick.
function dotPlot(parent, row, variants) {
  const W = 350, rowH = 22, left = 115, H = 24 + rowH * row.stats.length;
  const box = el('div', {class: 'plot'}, parent);
  el('div', {class: 'title', text: row.metric + (row.unit ? ' (' + row.unit + ')' : '')}, box);
  if (row.emulated) el('div', {class: 'emu', text: 'emulated timing (TCG)'}, box);
  const all = [];
  row.stats.forEach(s => { all.push(...s.values); if (s.ci95[0] !== null) all.push(...s.ci95); });
  const x = scale(Math.min(...all), Math.max(...all), left, W - 10);
  const svg = el('svg:svg', {width: W, height: H, class: 'dotplot'}, box);
  plots++;
  row.stats.forEach((s, i) => {
    const y = 14 + i * rowH, c = COLORS[i % COLORS.length];
    el('svg:text', {x: 2, y: y + 4, text: variants[i].label}, svg);
    if (s.ci95[0] !== null) {
      el('svg:line', {x1: x(s.ci95[0]), x2: x(s.ci95[1]), y1: y, y2: y, stroke: c,
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
  el('svg:text', {x: left, y: axis, text: fmt(Math.min(...all))}, svg);
  el('svg:text', {x: W - 60, y: axis, text: fmt(Math.max(...all))}, svg);
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
  const max = Math.max(1, ...rows.flatMap(r => r.stats.map(s => s.mean || 0)));
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
  el('svg:text', {x: 2, y: 12, text: fmt(max)}, svg);
  const legend = el('div', {}, parent);
  group.variants.forEach((v, i) => {
    el('span', {text: '■ ' + v.label + '  ', style: 'color:' + COLORS[i % COLORS.length]}, legend);
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
    const workload = g.metrics.filter(r => !/^(vmstat|mthp|meminfo)\./.test(r.metric));
    const counters = g.metrics.filter(r => /^(vmstat|mthp|meminfo)\./.test(r.metric));
    el('h3', {text: 'metrics (dots: repetitions; bar: 95 % CI of the mean; tick: median)'}, sec);
    const box = el('div', {class: 'plots'}, sec);
    workload.forEach(r => dotPlot(box, r, g.variants));
    sizeBars(sec, g);
    if (counters.length) {
      el('h3', {text: 'counter deltas per repetition (mean ± sd)'}, sec);
      table(sec, ['counter'].concat(g.variants.map(v => v.label)).concat(['verdict']),
            counters.map(r => [r.metric].concat(r.stats.map(s => fmt(s.mean) + ' ± ' + fmt(s.sd)))
                              .concat([r.vs_first.slice(1).map(d => d ? d.verdict : '').join(', ')])));
    }
    el('h3', {text: 'changes against ' + g.variants[0].label}, sec);
    const changes = [];
    g.metrics.forEach(r => r.vs_first.forEach((d, i) => {
      if (!d) return;
      const pct = v => v === null ? 'n/a' : (v * 100).toFixed(1) + ' %';
      changes.push([r.metric, g.variants[i].label, pct(d.rel_change),
                    pct(d.ci95[0]) + ' … ' + pct(d.ci95[1]),
                    d.basis === 'exact' ? 'exact' : fmt(d.mann_whitney_p),
                    d.basis === 'exact' ? 'exact' : fmt(d.welch_p), d.verdict]);
    }));
    table(sec, ['metric', 'variant', 'change', '95 % CI', 'p (MW)', 'p (Welch)', 'verdict'], changes);
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
  const box = el('div', {class: 'plots'}, root);
  data.series.forEach((s, k) => {
    const W = 520, H = 200, left = 60;
    const plot = el('div', {class: 'plot'}, box);
    el('div', {class: 'title', text: s.label}, plot);
    const ys = [];
    s.points.forEach(p => { if (p.mean !== null) ys.push(p.mean); if (p.ci95[0] !== null) ys.push(...p.ci95); });
    if (!ys.length) return;
    const y = scale(Math.min(...ys), Math.max(...ys), H - 30, 10);
    const x = i => left + (s.points.length > 1 ? i / (s.points.length - 1) : 0.5) * (W - left - 20);
    const svg = el('svg:svg', {width: W, height: H, class: 'trend'}, plot);
    plots++;
    const c = COLORS[k % COLORS.length];
    el('svg:polyline', {points: s.points.filter(p => p.mean !== null).map((p, i) => x(i) + ',' + y(p.mean)).join(' '),
                        fill: 'none', stroke: c, opacity: 0.5}, svg);
    s.points.forEach((p, i) => {
      if (p.mean === null) return;
      if (p.ci95[0] !== null) {
        el('svg:line', {x1: x(i), x2: x(i), y1: y(p.ci95[0]), y2: y(p.ci95[1]), stroke: c, class: 'ci'}, svg);
      }
      el('svg:circle', {cx: x(i), cy: y(p.mean), r: 3.5, fill: c, class: 'mark'}, svg);
      marks++;
      el('svg:text', {x: x(i) - 20, y: H - 8, text: p.stamp.slice(0, 8)}, svg);
    });
    el('svg:text', {x: 2, y: 14, text: fmt(Math.max(...ys))}, svg);
    el('svg:text', {x: 2, y: H - 30, text: fmt(Math.min(...ys))}, svg);
    if (s.points.some(p => p.emulated)) el('div', {class: 'emu', text: 'emulated timings (TCG)'}, plot);
  });
}
const DATA = JSON.parse(document.getElementById('data').textContent);
const root = document.getElementById('root');
if (DATA.series) drawHistory(DATA, root); else drawComparison(DATA, root);
document.body.dataset.plots = plots;
document.body.dataset.marks = marks;
)js";

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
      << kScript << "</script>\n</body></html>\n";
}

}  // namespace

void write_html(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out) {
  page(model.title.empty() ? "foliolab " + model.kind : model.title, comparison_json(model), extra,
       out);
}

void write_html(const HistoryModel& model, std::ostream& out) {
  page("foliolab history: " + model.metric, history_json(model), {}, out);
}

}  // namespace foliolab
