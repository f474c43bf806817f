#include "report/layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

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

std::string mean_ci_cell(const SampleStats& s) {
  if (!std::isfinite(s.ci_low)) return "n/a";
  return format_compact(s.ci_low) + " … " + format_compact(s.ci_high);
}

TextTable one_variant_table(const ComparisonGroup& g, bool full) {
  TextTable t;
  t.title = one_variant_title(g);
  t.key_columns = 2;
  t.header = {"metric", "unit", "n"};
  if (full) t.header.push_back("median");
  for (const char* h : {full ? "mean ± sd" : "mean", "95% CI", "CV"}) t.header.push_back(h);
  for (const MetricRow& row : g.rows) {
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
  for (const MetricRow& row : g.rows) t.rows.push_back(compact_row(row, pair, &marks));
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

TextTable gate_cases_table(const GateReport& r, bool all) {
  TextTable t;
  t.title = all ? "gate checks" : "gate checks that did not pass";
  t.header = {"outcome", "metric", "runs", "detail"};
  for (const GateCase& c : r.cases) {
    if (!all && c.outcome == GateOutcome::kPass) continue;
    t.rows.push_back(
        {std::string(gate_outcome_name(c.outcome)), c.metric, c.group, gate_message(c)});
  }
  return t;
}

std::string history_title(const HistoryModel& m) {
  std::string title = fmt::format("history of {}", m.metric);
  if (!m.info.unit.empty()) title += fmt::format(" ({})", m.info.unit);
  title +=
      fmt::format(" · {} · better: {}", metric_kind_name(m.info.kind), better_name(m.info.better));
  return title;
}

void add_expectation_lines(const SessionReport& r, std::vector<std::string>* lines) {
  if (r.expectations.empty()) return;
  lines->push_back("expectations:");
  for (const ExpectationResult& e : r.expectations) {
    lines->push_back((e.held ? "  held: " : "  NOT HELD: ") + e.name);
    for (const auto& d : expectation_details(e)) lines->push_back("      " + d);
  }
  lines->push_back("");
}

void add_host_lines(const SessionReport& r, std::vector<std::string>* lines) {
  if (!r.runs_by_host.empty()) {
    lines->push_back("runs per host:");
    for (const auto& [host, ids] : r.runs_by_host) {
      lines->push_back(fmt::format("  {} ({} run{}):", host.empty() ? "(unknown)" : host,
                                   ids.size(), ids.size() == 1 ? "" : "s"));
      for (const auto& id : ids) lines->push_back("    " + id);
    }
  }
  if (!r.moved.empty()) {
    lines->push_back("runs moved off a lost host:");
    for (const auto& m : r.moved) lines->push_back("  " + m);
  }
  if (!r.prepared.empty()) {
    lines->push_back("machine state reached:");
    for (const auto& m : r.prepared) lines->push_back("  " + m);
  }
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

}  // namespace

std::string p_cell(const Delta& d, double p) {
  return d.basis == VerdictBasis::kExact ? "exact" : format_p_cell(p);
}

std::string metric_label(const MetricRow& row) { return row.metric + (row.emulated ? "†" : ""); }

std::string stats_mean_sd(const SampleStats& s) {
  if (s.n < kMinSamples) return s.n == 1 ? format_compact(s.values[0]) + " (n=1)" : "-";
  const int decimals =
      std::isfinite(s.sd) && s.sd > 0 ? decimals_for(s.sd, 2) : decimals_for(s.mean, 4);
  return format_number(s.mean, decimals) + " ± " + format_number(s.sd, decimals);
}

namespace {

// "n=3/3: p 0.10 cannot reach 0.05; n>=5 (repeat: {max: 5}) would resolve 2 % at CV 1.1 %",
// or that repetition within kMaxAdaptiveReps cannot.
std::string underpowered_note(const Delta& d) {
  const std::string n = fmt::format("n={}/{}", d.n_base, d.n_cand);
  const std::string p =
      d.min_p > kAlpha ? fmt::format("{}: p {} cannot reach {}", n, format_p_cell(d.min_p), kAlpha)
                       : fmt::format("{}: p {}", n, format_p_cell(d.mann_whitney_p));
  if (!(d.min_effect > 0)) return p + "; the count varies within each side";
  const std::string what =
      fmt::format("{} at CV {}", format_percent_g(d.min_effect), format_percent(d.cv));
  if (d.reps_needed > kMaxAdaptiveReps) {
    return fmt::format("{}; {} reps per side cannot resolve {}", p, kMaxAdaptiveReps, what);
  }
  return fmt::format("{}; n>={} (repeat: {{max: {}}}) would resolve {}", p, d.reps_needed,
                     d.reps_needed, what);
}

}  // namespace

std::string delta_note(const Delta& d) {
  switch (d.note) {
    case DeltaNote::kNone:
      break;
    case DeltaNote::kFewSamples:
      return fmt::format("n={}/{}: no aggregate from fewer than {} samples", d.n_base, d.n_cand,
                         kMinSamples);
    case DeltaNote::kZeroBaseline:
      return "baseline mean is zero: no ratio";
    case DeltaNote::kUnderpowered:
      return underpowered_note(d);
    case DeltaNote::kGuestsBeside:
      return "other guests ran beside (run -j): timing not judged; -j 1, `exclusive: true` or "
             "machine.timing: icount";
  }
  return "";
}

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

std::string ci_text(const Delta& d) {
  if (!std::isfinite(d.ci_low)) return "n/a";
  return fmt::format("{} … {}", format_change(d.ci_low), format_change(d.ci_high));
}

std::string delta_text(const Delta& d) {
  if (!std::isfinite(d.rel_change)) return "n/a";
  return format_change(d.rel_change) + " [" + ci_text(d) + "]";
}

Document layout_comparison(const ComparisonModel& model, bool full) {
  Document doc;
  if (!model.title.empty()) doc.preamble.push_back(model.title);
  for (const std::string& w : model.warnings) doc.preamble.push_back("warning: " + w);
  for (const ComparisonGroup& g : model.groups) {
    doc.tables.push_back(full ? full_table(g) : compact_table(g));
  }
  for (const std::string& n : model.notes) doc.epilogue.push_back(n);
  return doc;
}

Document layout_gate(const GateReport& r, bool full) {
  Document doc = layout_comparison(r.comparison, full);
  const std::vector<std::string> notes = gate_note_lines(r);
  doc.preamble.insert(doc.preamble.begin(), notes.begin(), notes.end());
  doc.preamble.insert(doc.preamble.begin(), full ? "### " + gate_summary(r) : gate_summary(r));
  TextTable cases = gate_cases_table(r, full);
  if (!cases.rows.empty()) doc.tables.insert(doc.tables.begin(), std::move(cases));
  return doc;
}

Document layout_history(const HistoryModel& m) {
  Document doc;
  doc.preamble.push_back(history_title(m));
  for (const HistorySeries& s : m.series) {
    TextTable t;
    t.title = s.label;
    t.header = {"session", "n", "median", "mean ± sd", "95% CI of mean", "CV", "vs previous"};
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

std::string gate_summary(const GateReport& r) {
  std::string more;
  for (auto [n, what] : {std::pair{r.flaky, "flaky"}, {r.known, "known"}, {r.infra, "infra"}}) {
    if (n > 0) more += fmt::format(", {} {}", n, what);
  }
  return fmt::format("gate: {} — {} passed, {} failed, {} skipped{} ({} → {})",
                     r.failed > 0  ? "FAILED"
                     : r.infra > 0 ? "INCOMPLETE"
                                   : "PASSED",
                     r.passed, r.failed, r.skipped, more, r.comparison.base,
                     r.comparison.candidate);
}

namespace {

std::string finding_message(const GateCase& c) {
  const std::string values =
      fmt::format("{} → {} ({})", format_compact(c.base_median), format_compact(c.cand_median),
                  format_change(c.delta.rel_change));
  switch (c.finding) {
    case GateFinding::kEmulatedTiming:
      return "timing measured under TCG: gates use counts unless the rule sets timings: true "
             "or icount";
    case GateFinding::kNoComparison:
      return "no comparison";
    case GateFinding::kTooFewSamples:
      return fmt::format("n={}/{}: too few samples to judge", c.delta.n_base, c.delta.n_cand);
    case GateFinding::kChangedNotEqual:
      return "changed: " + values + ", must be equal";
    case GateFinding::kUnchanged:
      return "unchanged: " + values;
    case GateFinding::kRegressed:
    case GateFinding::kChangedBeyond:
      return fmt::format("{}: {}, allowed {}",
                         c.finding == GateFinding::kRegressed ? "regressed" : "changed", values,
                         format_change(c.limit));
    case GateFinding::kInconclusive: {
      const std::string note = delta_note(c.delta);
      return "inconclusive (passes): " + values + (note.empty() ? "" : "; " + note);
    }
    case GateFinding::kWithinLimit:
      return "within limit: " + values;
    case GateFinding::kNoResolvedChange:
      return "no resolved change: " + values;
    case GateFinding::kNoMatch:
      break;
  }
  return "no compared run has this metric (" + c.selector + ")";
}

std::string rerun_message(const GateCase& c) {
  const GateRerun& r = *c.rerun;
  if (!r.completed) {
    return fmt::format("infra: the rerun could not complete after {} retr{}: {}", r.retries,
                       r.retries == 1 ? "y" : "ies", r.incomplete_why);
  }
  GateCase again = c;
  again.finding = r.finding;
  again.base_median = r.base_median;
  again.cand_median = r.cand_median;
  again.delta = r.delta;
  return fmt::format("rerun {}× in fresh boots: {}", r.rounds, finding_message(again));
}

}  // namespace

std::string gate_message(const GateCase& c) {
  std::string m = finding_message(c);
  if (c.rerun) m += "; " + rerun_message(c);
  if (c.outcome == GateOutcome::kKnown) {
    m = fmt::format("known issue {} ({}): {}", c.known_id, c.known_url, m);
  }
  return m;
}

std::vector<std::string> gate_note_lines(const GateReport& r) {
  std::vector<std::string> lines;
  for (const GateCase& c : r.cases) {
    if (c.outcome != GateOutcome::kFlaky && c.outcome != GateOutcome::kKnown &&
        c.outcome != GateOutcome::kInfra) {
      continue;
    }
    lines.push_back(fmt::format("{}: {} · {} ({}): {}", gate_outcome_name(c.outcome), c.group,
                                c.metric, c.rule, gate_message(c)));
  }
  for (const KnownIssueNote& n : r.known_notes) {
    lines.push_back(n.expired ? fmt::format("known issue {} expired on {}: it suppresses nothing; "
                                            "review it ({})",
                                            n.id, n.expires, n.url)
                              : fmt::format("known issue {}: fixed? none of its cases fails "
                                            "(expires {}; {})",
                                            n.id, n.expires, n.url));
  }
  return lines;
}

std::vector<std::string> test_result_lines(const std::vector<RunSubtests>& runs) {
  std::vector<std::string> lines;
  if (runs.empty()) return lines;
  lines.push_back("tests (passed tests counted; every test is in run.json reps[].tests):");
  for (const RunSubtests& run : runs) {
    lines.push_back(fmt::format("  {}: {} passed, {} failed, {} skipped{} ({} rep{})", run.run_id,
                                run.pass, run.fail, run.skip,
                                run.mixed ? fmt::format(", {} differ between reps", run.mixed) : "",
                                run.reps, run.reps == 1 ? "" : "s"));
    for (const char* status : {"fail", "mixed", "skip"}) {
      for (const SubtestRow& row : run.rows) {
        if (row.status != status) continue;
        const std::string tag = row.status == "fail"   ? "FAIL "
                                : row.status == "skip" ? "skip "
                                                       : "mixed";
        lines.push_back(fmt::format("    {} {}{}", tag, row.name,
                                    row.detail.empty() ? "" : " — " + row.detail));
      }
    }
  }
  lines.push_back("");
  return lines;
}

std::vector<std::string> expectation_details(const ExpectationResult& r) {
  std::string threshold = format_value(r.threshold);
  if (r.op == CompareOp::kApprox) threshold += " ±" + format_tolerance(r.tolerance);
  const std::string_view op = compare_op_text(r.op);
  std::vector<std::string> lines;
  for (const ExpectationCheck& c : r.checks) {
    const std::string run = c.run.empty() ? "" : c.run + " ";
    if (!c.value) {
      lines.push_back(run + c.why);
    } else if (c.held) {
      lines.push_back(
          fmt::format("{}{} = {} {} {}", run, c.lhs, format_value(*c.value), op, threshold));
    } else {
      lines.push_back(
          fmt::format("{}{} = {}, not {} {}", run, c.lhs, format_value(*c.value), op, threshold));
    }
  }
  return lines;
}

std::vector<std::string> session_extra_lines(const SessionReport& r) {
  std::vector<std::string> lines = test_result_lines(r.tests);
  add_expectation_lines(r, &lines);
  if (!r.failures.empty()) {
    lines.push_back("failed runs:");
    for (const auto& f : r.failures) lines.push_back("  " + f);
  }
  add_host_lines(r, &lines);
  if (r.ignored > 0) {
    lines.push_back(
        fmt::format("({} stored run(s) not in the current plan were left out)", r.ignored));
  }
  return lines;
}

}  // namespace foliolab
