#include "report/comparison_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "report/cells.h"
#include "report/evidence_layout.h"
#include "report/number_format.h"

namespace foliolab {
namespace {

std::string_view verdict_mark(Verdict v) {
  switch (v) {
    case Verdict::kImproved:
      return "✓";
    case Verdict::kRegressed:
      return "✗";
    case Verdict::kChanged:
      return "≠";
    case Verdict::kNoChange:
      return "=";
    case Verdict::kInconclusive:
      break;
  }
  return "?";
}

// " (reached ±2 %)" or " (max; ±3.4 %)" after an n of adaptive repetitions; "" for a fixed
// count. `widest`: the half-width shown for max (nullopt: n/a).
std::string stop_note(const RepeatStop& s, std::optional<double> widest) {
  if (s.reason == RepeatStopReason::kReached) {
    return fmt::format(" (reached ±{})", format_percent_g(s.target));
  }
  if (s.reason != RepeatStopReason::kMax) return "";
  return " (max; ±" + (widest ? format_percent(*widest) : std::string("n/a")) + ")";
}

// The group's stop note: max when any variant went to max, with the widest half-width.
std::string group_stop_note(const ComparisonGroup& g) {
  std::optional<RepeatStop> worst;
  for (const VariantInfo& v : g.variants) {
    const auto& s = v.repeat_stop;
    if (!s || s->reason == RepeatStopReason::kFixed) continue;
    if (!worst || (s->reason == RepeatStopReason::kMax &&
                   (worst->reason != RepeatStopReason::kMax ||
                    s->widest().value_or(INFINITY) > worst->widest().value_or(INFINITY)))) {
      worst = s;
    }
  }
  return worst ? stop_note(*worst, worst->widest()) : "";
}

// A row's n with the stop note of a metric the variant's reps watched.
std::string n_cell(const SampleStats& s, const VariantInfo& v, const std::string& metric) {
  if (!v.repeat_stop) return std::to_string(s.n);
  for (const auto& [m, hw] : v.repeat_stop->half_width) {
    if (m == metric) return std::to_string(s.n) + stop_note(*v.repeat_stop, hw);
  }
  return std::to_string(s.n);
}

std::string n_text(const ComparisonGroup& g) {
  size_t lo = SIZE_MAX, hi = 0;
  for (const MetricRow& r : g.rows) {
    for (const SampleStats& s : r.stats) {
      lo = std::min(lo, s.n);
      hi = std::max(hi, s.n);
    }
  }
  if (hi == 0) return "n=0";
  return (lo == hi ? fmt::format("n={}", lo) : fmt::format("n={}..{}", lo, hi)) +
         group_stop_note(g);
}

std::string group_title(const ComparisonGroup& g) {
  std::string t = g.title + " · " + n_text(g);
  if (g.emulated()) t += g.icount() ? " · TCG icount" : " · TCG";
  return t;
}

std::vector<std::string> compact_header(const ComparisonGroup& g) {
  std::vector<std::string> header = {"metric", "unit"};
  const bool pair = g.variants.size() == 2;
  for (size_t v = 0; v < g.variants.size(); ++v) {
    header.push_back(g.variants[v].label);
    if (v > 0 && !pair) header.push_back("vs " + g.variants[0].label);
  }
  if (pair) {
    for (const char* h : {"change", "verdict", "95% CI", "p(MW)"}) header.push_back(h);
  }
  return header;
}

// One metric of the compact table; `marks` is set when a verdict mark was written.
std::vector<std::string> compact_row(const MetricRow& row, bool pair, bool* marks) {
  std::vector<std::string> cells = {metric_label(row), row.info.unit};
  for (size_t v = 0; v < row.stats.size(); ++v) {
    cells.push_back(format_compact(row.stats[v].median));
    if (v == 0 || pair || !row.deltas[v]) continue;
    cells.push_back(format_change(row.deltas[v]->rel_change) + " " +
                    std::string(verdict_mark(row.deltas[v]->verdict)));
    *marks = true;
  }
  if (pair && row.deltas.size() > 1 && row.deltas[1]) {
    const Delta& d = *row.deltas[1];
    cells.push_back(format_change(d.rel_change));
    cells.push_back(std::string(verdict_name(d.verdict)));
    cells.push_back(ci_text(d));
    cells.push_back(p_cell(d, d.mann_whitney_p));
  }
  return cells;
}

// A group of one variant (a session with one knob set) has nothing to compare: its table
// shows the statistics of each metric, and the title names the variant.
std::string one_variant_title(const ComparisonGroup& g) {
  const std::string t = group_title(g);
  const std::string& label = g.variants.front().label;
  if (label.empty() || g.title.find(label) != std::string::npos) return t;
  return g.title + " · " + label + t.substr(g.title.size());
}

// A metric's note, however many of its changes have one: the first note in its own words, and
// how many changes have one ("3 of 4 changes against 4K, first 16K: n=3/3 ..."); a single note
// as it is. "" when none has a note.
std::string metric_note(const ComparisonGroup& g, const MetricRow& row) {
  size_t noted = 0, changes = 0, first = 0;
  for (size_t v = 0; v < row.deltas.size(); ++v) {
    if (!row.deltas[v]) continue;
    ++changes;
    if (row.deltas[v]->note == DeltaNote::kNone) continue;
    if (noted++ == 0) first = v;
  }
  if (noted == 0) return "";
  const std::string note = delta_note(*row.deltas[first]);
  if (noted == 1) return note;
  return fmt::format("{} of {} changes against {}, first {}: {}", noted, changes,
                     g.variants[0].label, g.variants[first].label, note);
}

TextTable one_variant_table(const ComparisonGroup& g, bool full) {
  TextTable t;
  t.title = one_variant_title(g);
  t.key_columns = 2;
  t.header = {"metric", "unit", "n"};
  if (full) t.header.push_back("median");
  for (const char* h : {full ? "mean ± sd" : "mean", "95% CI", "CV"}) t.header.push_back(h);
  for (const MetricRow& row : g.rows) {
    if (row.evidence) continue;  // in the evidence tables
    const SampleStats& s = row.stats.front();
    std::vector<std::string> cells = {metric_label(row), row.info.unit, std::to_string(s.n)};
    if (full) cells.push_back(format_compact(s.median));
    cells.push_back(full ? stats_mean_sd(s) : format_compact(s.n == 1 ? s.values[0] : s.mean));
    cells.push_back(mean_ci_cell(s));
    cells.push_back(format_percent(s.cv));
    t.rows.push_back(std::move(cells));
  }
  t.notes = group_warnings(g);
  t.notes.push_back("95% CI: of the mean (Student t)");
  return t;
}

TextTable compact_table(const ComparisonGroup& g) {
  if (g.variants.size() == 1) return one_variant_table(g, /*full=*/false);
  TextTable t;
  t.title = group_title(g);
  t.key_columns = 2;
  t.header = compact_header(g);
  const bool pair = g.variants.size() == 2;
  bool marks = false;
  for (const MetricRow& row : g.rows) {
    if (!row.evidence) t.rows.push_back(compact_row(row, pair, &marks));
  }
  t.notes = group_warnings(g);
  if (marks) {
    t.notes.push_back(
        "values are medians; ✓ improved ✗ regressed ≠ changed = no change ? "
        "inconclusive");
  } else {
    t.notes.push_back("values are medians");
  }
  return t;
}

TextTable full_table(const ComparisonGroup& g) {
  if (g.variants.size() == 1) return one_variant_table(g, /*full=*/true);
  TextTable t;
  t.title = group_title(g);
  t.key_columns = 3;
  t.header = {"metric",          "unit",   "variant",   "n",      "median", "mean ± sd", "CV",
              "change [95% CI]", "p (MW)", "p (Welch)", "verdict"};
  for (const MetricRow& row : g.rows) {
    if (row.evidence) continue;  // in the evidence tables
    for (size_t v = 0; v < row.stats.size(); ++v) {
      const SampleStats& s = row.stats[v];
      std::vector<std::string> cells = {
          metric_label(row),        row.info.unit,
          g.variants[v].label,      n_cell(s, g.variants[v], row.metric),
          format_compact(s.median), stats_mean_sd(s),
          format_percent(s.cv)};
      if (v < row.deltas.size() && row.deltas[v]) {
        const Delta& d = *row.deltas[v];
        cells.push_back(delta_text(d));
        cells.push_back(p_cell(d, d.mann_whitney_p));
        cells.push_back(p_cell(d, d.welch_p));
        cells.push_back(std::string(verdict_name(d.verdict)));
      } else {
        cells.insert(cells.end(), {"(baseline)", "", "", ""});
      }
      t.rows.push_back(std::move(cells));
    }
  }
  t.notes = group_warnings(g);
  return t;
}

}  // namespace

// The group's warnings, then one line per metric note (metric_note), after all the metrics
// that share it ("user_s, sys_s: other guests ran beside ...").
std::vector<std::string> group_warnings(const ComparisonGroup& g) {
  std::vector<std::string> out = g.warnings;
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;  // note -> metrics
  for (const MetricRow& row : g.rows) {
    const std::string note = metric_note(g, row);
    if (note.empty()) continue;
    auto it =
        std::find_if(notes.begin(), notes.end(), [&](const auto& n) { return n.first == note; });
    if (it == notes.end()) it = notes.insert(notes.end(), {note, {}});
    it->second.push_back(row.metric);
  }
  for (const auto& [note, metrics] : notes)
    out.push_back(fmt::format("{}: {}", fmt::join(metrics, ", "), note));
  return out;
}

Document layout_comparison(const ComparisonModel& model, bool full) {
  Document doc;
  if (!model.title.empty()) doc.preamble.push_back(model.title);
  for (const std::string& w : model.warnings) doc.preamble.push_back("warning: " + w);
  for (const ComparisonGroup& g : model.groups) {
    doc.tables.push_back(full ? full_table(g) : compact_table(g));
    for (TextTable& t : evidence_tables(g)) doc.tables.push_back(std::move(t));
  }
  for (const std::string& n : model.notes) doc.epilogue.push_back(n);
  return doc;
}

}  // namespace foliolab
