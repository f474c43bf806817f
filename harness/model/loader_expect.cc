// The experiment loader: run selections (exclude), expectations (expect), the gate and the
// counts' thresholds.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab::loader_internal {
namespace {

bool threshold_name(std::string_view name) {
  if (name.ends_with('*')) name.remove_suffix(1);
  // Kernel evidence counts (model/evidence.h) have ':' and a split "[field=value]".
  return !name.empty() && is_word(name, "._-:=[]");
}

}  // namespace

Result<void> Parser::parse_gate_rules(const Field& f, std::vector<GateRule>* out) const {
  auto items = read_list(f, nullptr);
  FL_TRY(items);
  for (const Field& item : *items) {
    GateRule rule;
    FL_TRY(parse_gate_rule(item, &rule));
    out->push_back(std::move(rule));
  }
  return {};
}

Result<void> Parser::parse_gate_rule(const Field& f, GateRule* g) const {
  auto fields = read_map(f, &file_keys::gate_rule().names());
  FL_TRY(fields);
  g->loc = loc(f.value);
  FL_TRY(require(*fields, f, file_keys::gate_rule().required()));
  auto metric = read_nonempty(*fields->find("metric"));
  FL_TRY(metric);
  g->metric = *metric;
  g->metric_loc = loc(*fields->find("metric"));
  if (const Field* n = fields->find("name")) {
    auto name = read_nonempty(*n);
    FL_TRY(name);
    g->name = *name;
  }
  if (const Field* r = fields->find("runs")) FL_TRY(parse_selector(*r, &g->runs));
  if (const Field* b = fields->find("better")) {
    auto better = read_better(*b);
    FL_TRY(better);
    g->better = *better;
  }
  if (const Field* t = fields->find("timings")) {
    auto text = read_scalar(*t);
    FL_TRY(text);
    if (*text == "icount") {
      g->timings = GateTimings::kIcount;
    } else {
      auto on = read_bool(*t);
      FL_TRY(on);
      g->timings = *on ? GateTimings::kAll : GateTimings::kNone;
    }
  }
  const Field* max = fields->find("max_regression");
  const Field* equal = fields->find("equal");
  if ((max != nullptr) == (equal != nullptr)) {
    return error(loc(f.value), f.path,
                 "give exactly one of 'max_regression' (e.g. 5%) and 'equal: true'");
  }
  std::string limit;
  if (max) {
    auto fraction = read_percent(*max, "");
    FL_TRY(fraction);
    g->max_regression = *fraction;
    limit = "regresses by at most " + *read_scalar(*max);
  } else {
    auto on = read_bool(*equal);
    FL_TRY(on);
    if (!*on) return error(*equal, "only 'equal: true' is meaningful; use max_regression");
    g->equal = true;
    limit = "unchanged";
  }
  if (g->name.empty()) g->name = g->metric + " " + limit + " (" + selector_text(g->runs) + ")";
  return {};
}

Result<void> Parser::parse_thresholds(const Field& f, ThresholdRules* out) const {
  auto fields = read_map(f, nullptr);
  FL_TRY(fields);
  for (const auto& [name, field] : fields->entries) {
    if (!threshold_name(name)) {
      return key_error(field, "'" + name +
                                  "' is not a metric name, nor a prefix ending in '*' "
                                  "(fallback.thp, fallback.anon.*)");
    }
    auto threshold = read_threshold(field);
    FL_TRY(threshold);
    out->push_back({name, *threshold, loc(field.key)});
  }
  return {};
}

// 16 (in the metric's unit), "30%" (of the larger mean of the two sides), or both as a map:
// the larger of the two applies.
Result<CountThreshold> Parser::read_threshold(const Field& f) const {
  CountThreshold t;
  if (!f.value.IsMap()) {
    auto text = read_scalar(f);
    FL_TRY(text);
    if (text->ends_with('%')) {
      auto rel = read_percent(f, "");
      FL_TRY(rel);
      t.rel = *rel;
      return t;
    }
    auto abs = read_number(f);
    FL_TRY(abs);
    if (*abs < 0) return error(f, "a threshold is at least 0");
    t.abs = *abs;
    return t;
  }
  auto fields = read_map(f, &file_keys::threshold_parts().names());
  FL_TRY(fields);
  if (fields->entries.empty()) return error(f, "give abs, rel or both");
  for (const auto& [key, field] : fields->entries) {
    auto part = read_threshold(field);
    FL_TRY(part);
    if (key == "abs" && part->rel > 0) return error(field, "abs is a number in the metric's unit");
    if (key == "rel" && part->abs > 0) return error(field, "rel is a percentage, such as 30%");
    (key == "abs" ? t.abs : t.rel) = key == "abs" ? part->abs : part->rel;
  }
  return t;
}

Result<double> Parser::read_percent(const Field& f, std::string_view prefix) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  std::string_view t = trim(*text);
  const bool has_prefix = t.substr(0, prefix.size()) == prefix;
  if (has_prefix) t = trim(t.substr(prefix.size()));
  const bool has_pct = has_prefix && !t.empty() && t.back() == '%';
  const auto pct = has_pct ? parse_double(trim(t.substr(0, t.size() - 1))) : std::nullopt;
  if (!pct || *pct < 0 || !std::isfinite(*pct)) {
    return error(f, fmt::format("expected a percentage such as {}5% or {}0%, got '{}'",
                                prefix.empty() ? "" : std::string(prefix) + " ",
                                prefix.empty() ? "" : std::string(prefix) + " ", *text));
  }
  return *pct / 100;
}

// Names are resolved against the rest of the document later (check_references), since the
// keys may come in any order.
Result<void> Parser::parse_selector(const Field& f, RunSelector* sel) const {
  auto fields = read_map(f, &file_keys::selector().names());
  FL_TRY(fields);
  sel->loc = loc(f.value);
  for (const auto& [key, field] : fields->entries) {
    if (key == "arch") {
      auto arch = read_arch(field);
      FL_TRY(arch);
      sel->arch = *arch;
      sel->arch_loc = loc(field);
      continue;
    }
    auto value = read_nonempty(field);
    FL_TRY(value);
    if (key == "kernel") {
      sel->kernel = *value;
      sel->kernel_loc = loc(field);
    } else if (key == "knobs") {
      sel->knobs = *value;
      sel->knobs_loc = loc(field);
    } else {
      sel->workload = *value;
      sel->workload_loc = loc(field);
    }
  }
  return {};
}

Result<void> Parser::parse_excludes(const Field& f, std::vector<RunSelector>* out) const {
  auto items = read_list(f, nullptr);
  FL_TRY(items);
  for (const Field& item : *items) {
    RunSelector sel;
    FL_TRY(parse_selector(item, &sel));
    if (sel.empty()) {
      return error(item, "an empty entry would exclude every run; give at least one of " +
                             join(file_keys::selector().names(), ", "));
    }
    out->push_back(std::move(sel));
  }
  return {};
}

Result<void> Parser::parse_expectations(const Field& f, std::vector<Expectation>* out) const {
  auto items = read_list(f, nullptr);
  FL_TRY(items);
  for (const Field& item : *items) {
    Expectation e;
    FL_TRY(parse_expectation(item, &e));
    out->push_back(std::move(e));
  }
  return {};
}

Result<void> Parser::parse_expectation(const Field& f, Expectation* e) const {
  auto fields = read_map(f, &file_keys::expectation().names());
  FL_TRY(fields);
  e->loc = loc(f.value);
  FL_TRY(require(*fields, f, file_keys::expectation().required()));
  if (const Field* n = fields->find("name")) {
    auto name = read_nonempty(*n);
    FL_TRY(name);
    e->name = *name;
  }
  if (const Field* r = fields->find("runs")) FL_TRY(parse_selector(*r, &e->runs));
  {
    const Field& m = *fields->find("metric");
    auto metric = read_nonempty(m);
    FL_TRY(metric);
    if (metric->find(' ') != std::string::npos) {
      return error(m, "invalid metric name '" + *metric + "': no spaces");
    }
    e->metric = *metric;
    e->metric_loc = loc(m);
  }
  if (const Field* s = fields->find("stat")) {
    auto stat = read_scalar(*s);
    FL_TRY(stat);
    const Keys& stats = file_keys::stat_names();
    const auto it = std::find(stats.begin(), stats.end(), *stat);
    if (it == stats.end()) {
      return error(*s, "unknown stat '" + *stat + "'" + did_you_mean(*stat, stats) +
                           " (valid: " + join(stats, ", ") + ")");
    }
    e->stat = static_cast<Statistic>(it - stats.begin());
  }
  if (const Field* r = fields->find("ratio_to")) {
    RunSelector partner;
    FL_TRY(parse_selector(*r, &partner));
    if (partner.empty()) {
      return error(*r, "give the fields in which the reference run differs, e.g. {knobs: \"4K\"}");
    }
    e->ratio_to = std::move(partner);
  }
  std::string value_text;
  FL_TRY(parse_comparison(f, *fields, e, &value_text));
  if (e->name.empty()) e->name = generated_name(*e, value_text);
  return {};
}

// Exactly one of the comparison keys; `tolerance` only (and always) with approx.
Result<void> Parser::parse_comparison(const Field& item, const Fields& fields, Expectation* e,
                                      std::string* value_text) const {
  const Keys& ops = file_keys::comparison_keys();
  const Field* comparison = nullptr;
  for (const auto& [key, field] : fields.entries) {
    if (std::find(ops.begin(), ops.end(), key) == ops.end()) continue;
    if (comparison) {
      return key_error(field, "only one comparison per expectation ('" + comparison->key.Scalar() +
                                  "'" + first_at(loc(comparison->key)) +
                                  "); write two expectations");
    }
    comparison = &field;
  }
  if (!comparison) {
    return error(loc(item.value), item.path,
                 "missing comparison: give exactly one of " + join(ops, ", "));
  }
  const std::string op = comparison->key.Scalar();
  e->op = static_cast<CompareOp>(std::find(ops.begin(), ops.end(), op) - ops.begin());
  auto value = read_number(*comparison);
  FL_TRY(value);
  e->value = *value;
  *value_text = comparison->value.Scalar();
  FL_TRY(check_rules(fields, file_keys::expectation()));  // tolerance with approx, and only
  const Field* tolerance = fields.find("tolerance");
  if (e->op != CompareOp::kApprox) return {};
  auto tol = read_number(*tolerance);
  FL_TRY(tol);
  if (*tol < 0) return error(*tolerance, "must not be negative");
  e->tolerance = *tol;
  return {};
}

// "faults / knobs=4K <= 0.08 (knobs=64K mTHP)", "median faults approx 100 ±10% (all runs)".
std::string Parser::generated_name(const Expectation& e, const std::string& value_text) {
  std::string out;
  if (e.stat != Statistic::kMean) out += std::string(statistic_name(e.stat)) + " ";
  out += e.metric;
  if (e.ratio_to) out += " / " + selector_text(*e.ratio_to);
  out += " " + std::string(compare_op_text(e.op)) + " " + value_text;
  if (e.op == CompareOp::kApprox) {
    char tol[32];
    std::snprintf(tol, sizeof tol, " ±%g%%", e.tolerance * 100);
    out += tol;
  }
  return out + " (" + selector_text(e.runs) + ")";
}

}  // namespace foliolab::loader_internal
