#include "report/render_comparison.h"

#include <fmt/format.h>

#include <cmath>

#include "report/number_format.h"

namespace foliolab {
using json = nlohmann::json;

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

std::string ci_text(const Delta& d) {
  if (!std::isfinite(d.ci_low)) return "n/a";
  return fmt::format("{} … {}", format_change(d.ci_low), format_change(d.ci_high));
}

std::string p_text(double p) {
  if (!std::isfinite(p)) return "n/a";
  return p < 0.001 ? "<.001" : fmt::format("{:.3f}", p);
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
  return lo == hi ? fmt::format("n={}", lo) : fmt::format("n={}..{}", lo, hi);
}

std::string group_title(const ComparisonGroup& g) {
  std::string t = g.title + " · " + n_text(g);
  if (g.emulated()) t += " · TCG";
  return t;
}

TextTable compact_table(const ComparisonGroup& g) {
  TextTable t;
  t.title = group_title(g);
  t.key_columns = 2;
  t.header = {"metric", "unit"};
  const bool pair = g.variants.size() == 2;
  for (size_t v = 0; v < g.variants.size(); ++v) {
    t.header.push_back(g.variants[v].label);
    if (v > 0 && !pair) t.header.push_back("vs " + g.variants[0].label);
  }
  if (pair) {
    for (const char* h : {"change", "95% CI", "p(MW)", "verdict"}) t.header.push_back(h);
  }
  bool marks = false;
  for (const MetricRow& row : g.rows) {
    std::vector<std::string> cells = {metric_label(row), row.info.unit};
    for (size_t v = 0; v < row.stats.size(); ++v) {
      cells.push_back(format_compact(row.stats[v].median));
      if (v == 0 || pair || !row.deltas[v]) continue;
      cells.push_back(format_change(row.deltas[v]->rel_change) + " " +
                      std::string(verdict_mark(row.deltas[v]->verdict)));
      marks = true;
    }
    if (pair && row.deltas.size() > 1 && row.deltas[1]) {
      const Delta& d = *row.deltas[1];
      cells.push_back(format_change(d.rel_change));
      cells.push_back(ci_text(d));
      cells.push_back(p_text(d.mann_whitney_p));
      cells.push_back(std::string(verdict_name(d.verdict)));
    }
    t.rows.push_back(std::move(cells));
  }
  t.notes = g.warnings;
  if (marks) t.notes.push_back("values are medians; ✓ improved ✗ regressed ≠ changed = no change ? "
                               "inconclusive");
  else t.notes.push_back("values are medians");
  return t;
}

TextTable full_table(const ComparisonGroup& g) {
  TextTable t;
  t.title = group_title(g);
  t.key_columns = 3;
  t.header = {"metric", "unit",   "variant",         "n",     "median",  "mean ± sd",
              "CV",     "change [95% CI]", "p (MW)", "p (Welch)", "verdict"};
  for (const MetricRow& row : g.rows) {
    for (size_t v = 0; v < row.stats.size(); ++v) {
      const SampleStats& s = row.stats[v];
      std::vector<std::string> cells = {metric_label(row), row.info.unit, g.variants[v].label,
                                        std::to_string(s.n), format_compact(s.median),
                                        stats_mean_sd(s),
                                        std::isfinite(s.cv) ? fmt::format("{:.1f} %", s.cv * 100)
                                                            : "n/a"};
      if (v < row.deltas.size() && row.deltas[v]) {
        const Delta& d = *row.deltas[v];
        cells.push_back(delta_text(d));
        cells.push_back(p_text(d.mann_whitney_p));
        cells.push_back(p_text(d.welch_p));
        cells.push_back(std::string(verdict_name(d.verdict)));
      } else {
        cells.insert(cells.end(), {"(baseline)", "", "", ""});
      }
      t.rows.push_back(std::move(cells));
    }
  }
  t.notes = g.warnings;
  return t;
}

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
          {"min_effect", d.min_effect},
          {"note", d.note}};
}

std::string csv_number(double x) { return std::isfinite(x) ? fmt::format("{}", x) : ""; }

}  // namespace

bool parse_format(std::string_view text, Format* out) {
  if (text == "text") *out = Format::kText;
  else if (text == "markdown" || text == "md") *out = Format::kMarkdown;
  else if (text == "csv") *out = Format::kCsv;
  else if (text == "json") *out = Format::kJson;
  else return false;
  return true;
}

json number_json(double x) { return std::isfinite(x) ? json(x) : json(); }

std::string metric_label(const MetricRow& row) { return row.metric + (row.emulated ? "†" : ""); }

std::string stats_mean_sd(const SampleStats& s) {
  if (s.n < kMinSamples) return s.n == 1 ? format_compact(s.values[0]) + " (n=1)" : "-";
  const int decimals = std::isfinite(s.sd) && s.sd > 0 ? decimals_for(s.sd, 2)
                                                       : decimals_for(s.mean, 4);
  return format_number(s.mean, decimals) + " ± " + format_number(s.sd, decimals);
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

json comparison_json(const ComparisonModel& model) {
  json groups = json::array();
  for (const ComparisonGroup& g : model.groups) {
    json variants = json::array();
    for (const VariantInfo& v : g.variants) {
      json knobs = json::array();
      for (const auto& [k, val] : v.knobs_set) knobs.push_back({k, val});
      variants.push_back({{"label", v.label},
                          {"runs", v.runs},
                          {"accel", v.accel},
                          {"timings_emulated", v.emulated},
                          {"knobs_set", knobs},
                          {"kernel_build_id", v.kernel_build_id},
                          {"kernel_version", v.kernel_version},
                          {"emulator", v.emulator},
                          {"host", v.host},
                          {"guest_release", v.guest_release}});
    }
    json rows = json::array();
    for (const MetricRow& r : g.rows) {
      json stats = json::array(), deltas = json::array();
      for (const SampleStats& s : r.stats) stats.push_back(stats_json(s));
      for (const auto& d : r.deltas) deltas.push_back(d ? delta_json(*d) : json());
      rows.push_back({{"metric", r.metric},
                      {"unit", r.info.unit},
                      {"better", better_name(r.info.better)},
                      {"kind", metric_kind_name(r.info.kind)},
                      {"emulated", r.emulated},
                      {"stats", stats},
                      {"vs_first", deltas}});
    }
    groups.push_back({{"title", g.title},
                      {"kernel", g.kernel},
                      {"arch", g.arch},
                      {"workload", g.workload},
                      {"knobs", g.knobs},
                      {"variants", variants},
                      {"metrics", rows},
                      {"warnings", g.warnings}});
  }
  return {{"schema", kComparisonSchema}, {"kind", model.kind},   {"title", model.title},
          {"base", model.base},          {"candidate", model.candidate},
          {"groups", groups},            {"notes", model.notes},
          {"warnings", model.warnings}};
}

void comparison_csv(const ComparisonModel& model, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  for (const ComparisonGroup& g : model.groups) {
    for (const MetricRow& r : g.rows) {
      for (size_t v = 0; v < r.stats.size(); ++v) {
        const SampleStats& s = r.stats[v];
        std::vector<std::string> row = {
            g.title, g.kernel, g.arch, g.workload, g.variants[v].label, r.metric, r.info.unit,
            std::string(metric_kind_name(r.info.kind)), r.emulated ? "1" : "0",
            std::to_string(s.n), csv_number(s.median), csv_number(s.mean), csv_number(s.sd),
            csv_number(s.cv)};
        if (v < r.deltas.size() && r.deltas[v]) {
          const Delta& d = *r.deltas[v];
          for (double x : {d.rel_change, d.ci_low, d.ci_high, d.mann_whitney_p, d.welch_p}) {
            row.push_back(csv_number(x));
          }
          row.push_back(std::string(verdict_name(d.verdict)));
        } else {
          row.insert(row.end(), 6, "");
        }
        rows.push_back(std::move(row));
      }
    }
  }
  render_csv({"group", "kernel", "arch", "workload", "variant", "metric", "unit", "kind",
              "emulated", "n", "median", "mean", "sd", "cv", "rel_change", "ci95_low",
              "ci95_high", "mann_whitney_p", "welch_p", "verdict"},
             rows, out);
}

void render_comparison(const ComparisonModel& model, Format format, std::ostream& out,
                       const std::vector<std::string>& extra) {
  switch (format) {
    case Format::kJson: {
      json j = comparison_json(model);
      j["extra"] = extra;
      out << j.dump(2) << "\n";
      return;
    }
    case Format::kCsv:
      comparison_csv(model, out);
      return;
    case Format::kText:
    case Format::kMarkdown: {
      Document doc = layout_comparison(model, format == Format::kMarkdown);
      doc.epilogue.insert(doc.epilogue.end(), extra.begin(), extra.end());
      if (format == Format::kText) {
        render_text(doc, out);
      } else {
        render_markdown(doc, out);
      }
      return;
    }
  }
}

}  // namespace foliolab
