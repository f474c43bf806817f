#include "report/json.h"

#include <cmath>

#include "model/distribution.h"
#include "report/cells.h"
#include "report/comparison_layout.h"
#include "report/gate_layout.h"

namespace foliolab {
using json = nlohmann::json;

namespace {

json stats_json(const SampleStats& s) {
  return {{"n", s.n},
          {"mean", number_json(s.mean)},
          {"sd", number_json(s.sd)},
          {"median", number_json(s.median)},
          {"cv", number_json(s.cv)},
          {"ci95", {number_json(s.ci_low), number_json(s.ci_high)}},
          {"min", number_json(s.min)},
          {"max", number_json(s.max)},
          {"values", s.values}};
}

json delta_json(const Delta& d) {
  return {{"rel_change", number_json(d.rel_change)},
          {"ci95", {number_json(d.ci_low), number_json(d.ci_high)}},
          {"mann_whitney_p", number_json(d.mann_whitney_p)},
          {"welch_p", number_json(d.welch_p)},
          {"verdict", verdict_name(d.verdict)},
          {"basis", basis_name(d.basis)},
          {"min_effect", d.min_effect},
          {"threshold", d.threshold},
          {"per_boot", d.per_boot},
          {"note", delta_note(d)}};
}

json variant_json(const VariantInfo& v) {
  json knobs = json::array();
  for (const auto& [k, val] : v.knobs_set) knobs.push_back({k, val});
  return {{"label", v.label},
          {"runs", v.runs},
          {"accel", v.accel},
          {"timings_emulated", v.emulated},
          {"timings_icount", v.icount},
          {"knobs_set", knobs},
          {"kernel_build_id", v.kernel_build_id},
          {"kernel_version", v.kernel_version},
          {"emulator", v.emulator},
          {"host", v.host},
          {"guest_release", v.guest_release}};
}

json metric_json(const MetricRow& r) {
  json stats = json::array(), deltas = json::array();
  for (const SampleStats& s : r.stats) stats.push_back(stats_json(s));
  for (const auto& d : r.deltas) deltas.push_back(d ? delta_json(*d) : json());
  return {{"metric", r.metric},
          {"unit", r.info.unit},
          {"better", better_name(r.info.better)},
          {"kind", metric_kind_name(r.info.kind)},
          {"emulated", r.emulated},
          {"icount", r.icount},
          {"evidence", r.evidence},
          {"stats", stats},
          {"vs_first", deltas}};
}

json distribution_plot_json(const DistributionPlot& p) {
  json quantiles = json::array();
  for (const auto& q : p.quantiles) {
    json one = json::object();
    for (size_t i = 0; i < q.size(); ++i) {
      one[std::string(kDistributionQuantiles[i].suffix)] = number_json(q[i]);
    }
    quantiles.push_back(std::move(one));
  }
  return {{"metric", p.metric},       {"unit", p.unit},         {"edges", p.edges},
          {"fractions", p.fractions}, {"quantiles", quantiles}, {"counts", p.counts}};
}

// The group's kernel evidence (analysis/evidence.h): its rows' names ranked by size of change
// (the rows are in "metrics"), each distribution's pooled histogram and quantiles per
// variant, and the census (means[what][variant], null where absent).
json evidence_json(const EvidenceSection& e) {
  json ranked = json::array(), plots = json::array(), rows = json::array();
  for (const DistributionPlot& p : e.plots) plots.push_back(distribution_plot_json(p));
  for (const CensusTable::Row& r : e.census.rows) {
    json means = json::array();
    for (const auto& per_variant : r.means) {
      json v = json::array();
      for (double x : per_variant) v.push_back(number_json(x));
      means.push_back(std::move(v));
    }
    rows.push_back({{"kind", r.kind}, {"size", r.size}, {"means", means}});
  }
  return {{"distributions", plots}, {"census", {{"whats", e.census.whats}, {"rows", rows}}}};
}

json group_json(const ComparisonGroup& g) {
  json variants = json::array(), rows = json::array();
  for (const VariantInfo& v : g.variants) variants.push_back(variant_json(v));
  for (const MetricRow& r : g.rows) rows.push_back(metric_json(r));
  json evidence = evidence_json(g.evidence);
  json ranked = json::array();
  for (size_t i : g.evidence.ranked) ranked.push_back(g.rows[i].metric);
  evidence["ranked"] = std::move(ranked);
  return {{"title", g.title},    {"kernel", g.kernel},
          {"arch", g.arch},      {"workload", g.workload},
          {"knobs", g.knobs},    {"variants", variants},
          {"metrics", rows},     {"warnings", group_warnings(g)},
          {"evidence", evidence}};
}

json point_json(const HistoryPoint& p) {
  return {{"session", p.session},
          {"stamp", p.stamp},
          {"n", p.stats.n},
          {"median", number_json(p.stats.median)},
          {"mean", number_json(p.stats.mean)},
          {"sd", number_json(p.stats.sd)},
          {"ci95", {number_json(p.stats.ci_low), number_json(p.stats.ci_high)}},
          {"emulated", p.emulated},
          {"icount", p.icount},
          {"vs_previous", p.delta ? delta_json(*p.delta) : json()},
          {"gate", p.gate.empty() ? json() : json(p.gate)},
          {"gate_baseline", p.gate.empty() ? json() : json(p.gate_baseline)}};
}

json change_point_json(const HistorySeries& s, const ChangePoint& c) {
  return {{"index", c.index},
          {"kind", change_kind_name(c.kind)},
          {"last_before", s.points.at(c.index - 1).session},
          {"first_after", s.points.at(c.index).session},
          {"before", number_json(c.before)},
          {"after", number_json(c.after)},
          {"n_before", c.n_before},
          {"n_after", c.n_after},
          {"magnitude", number_json(c.magnitude)},
          {"t", number_json(c.t)},
          {"p", number_json(c.p)}};
}

}  // namespace

json number_json(double x) { return std::isfinite(x) ? json(x) : json(); }

json comparison_json(const ComparisonModel& model) {
  json groups = json::array();
  for (const ComparisonGroup& g : model.groups) groups.push_back(group_json(g));
  return {{"schema", kComparisonSchema}, {"kind", model.kind},           {"title", model.title},
          {"base", model.base},          {"candidate", model.candidate}, {"groups", groups},
          {"notes", model.notes},        {"warnings", model.warnings}};
}

json history_json(const HistoryModel& m) {
  json series = json::array();
  for (const HistorySeries& s : m.series) {
    json points = json::array();
    for (const HistoryPoint& p : s.points) points.push_back(point_json(p));
    json one = {{"label", s.label}, {"experiment", s.experiment}, {"kernel", s.kernel},
                {"arch", s.arch},   {"knobs", s.knob_set},        {"workload", s.workload},
                {"points", points}};
    if (m.change_points) {
      one["change_kind"] = change_kind_name(s.change_kind);
      one["change_points"] = json::array();
      for (const ChangePoint& c : s.change_points) {
        one["change_points"].push_back(change_point_json(s, c));
      }
    }
    series.push_back(std::move(one));
  }
  json j = {{"schema", kHistorySchema},
            {"metric", m.metric},
            {"unit", m.info.unit},
            {"better", better_name(m.info.better)},
            {"kind", metric_kind_name(m.info.kind)},
            {"series", series}};
  if (m.change_points) {
    const ChangePointOptions& o = *m.change_points;
    j["change_point_rule"] = {{"max_p", o.max_p},
                              {"min_segment", o.min_segment},
                              {"min_magnitude", o.min_magnitude},
                              {"window", o.window}};
  }
  return j;
}

void write_json(const ComparisonModel& model, const std::vector<std::string>& extra,
                std::ostream& out) {
  json j = comparison_json(model);
  j["extra"] = extra;
  out << j.dump(2) << "\n";
}

namespace {

json gate_case_json(const GateCase& c) {
  json j = {{"rule", c.rule},
            {"group", c.group},
            {"metric", c.metric},
            {"outcome", gate_outcome_name(c.outcome)},
            {"message", gate_message(c)}};
  if (!c.known_id.empty()) {
    j["known_issue"] = {{"id", c.known_id}, {"url", c.known_url}, {"expires", c.known_expires}};
  }
  if (c.rerun) {
    j["rerun"] = {{"rounds", c.rerun->rounds},
                  {"retries", c.rerun->retries},
                  {"completed", c.rerun->completed},
                  {"outcome", gate_outcome_name(c.rerun->outcome)},
                  {"sessions", c.rerun->sessions}};
  }
  return j;
}

}  // namespace

json gate_json(const GateReport& r) {
  json cases = json::array();
  for (const GateCase& c : r.cases) {
    json one = gate_case_json(c);
    // The group's identity and the change, so that the index can put the verdict beside the
    // metric's history (results/finding_index.h).
    if (c.group_index >= 0 && static_cast<size_t>(c.group_index) < r.comparison.groups.size()) {
      const ComparisonGroup& g = r.comparison.groups[static_cast<size_t>(c.group_index)];
      one["kernel"] = g.kernel;
      one["arch"] = g.arch;
      one["knobs"] = g.knobs;
      one["workload"] = g.workload;
    }
    one["rel_change"] = number_json(c.delta.rel_change);
    cases.push_back(std::move(one));
  }
  json notes = json::array();
  for (const KnownIssueNote& n : r.known_notes) {
    notes.push_back({{"id", n.id},
                     {"url", n.url},
                     {"expires", n.expires},
                     {"state", n.expired ? "expired" : "fixed?"}});
  }
  return {{"schema", kGateSchema},
          {"ok", r.ok()},
          {"baseline", r.comparison.base},
          {"candidate", r.comparison.candidate},
          {"passed", r.passed},
          {"failed", r.failed},
          {"skipped", r.skipped},
          {"flaky", r.flaky},
          {"infra", r.infra},
          {"known", r.known},
          {"cases", cases},
          {"known_issue_notes", notes}};
}

void write_json(const GateReport& r, std::ostream& out) {
  json j = gate_json(r);
  j["comparison"] = comparison_json(r.comparison);
  out << j.dump(2) << "\n";
}

void write_json(const HistoryModel& model, std::ostream& out) {
  out << history_json(model).dump(2) << "\n";
}

}  // namespace foliolab
