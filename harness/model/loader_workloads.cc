// The experiment loader: workloads (name, label, params, metric declarations).
#include <algorithm>
#include <string>
#include <vector>

#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab::loader_internal {
namespace {

const Keys kWorkloadKeys = {"name", "label", "params", "metrics", "exclusive"};
const Keys kMetricDeclKeys = {"unit", "better", "kind", "pattern", "primary"};

}  // namespace

Status Parser::parse_workloads(const Field& f, std::vector<WorkloadSpec>* out) const {
  auto items = read_list(f, "must list at least one workload");
  FL_TRY(items);
  std::vector<SourceLoc> label_locs;
  for (const Field& item : *items) {
    WorkloadSpec w;
    SourceLoc label_loc;
    std::string label_path;
    FL_TRY(parse_workload(item, &w, &label_loc, &label_path));
    for (size_t i = 0; i < out->size(); ++i) {
      if ((*out)[i].label == w.label) {
        return error(label_loc, label_path,
                     "duplicate workload label '" + w.label + "'" + first_at(label_locs[i]) +
                         "; give one of them a distinct 'label'");
      }
    }
    out->push_back(std::move(w));
    label_locs.push_back(label_loc);
  }
  return {};
}

Status Parser::parse_workload(const Field& f, WorkloadSpec* w, SourceLoc* label_loc,
                              std::string* label_path) const {
  auto fields = read_map(f, &kWorkloadKeys);
  FL_TRY(fields);
  w->loc = loc(f.value);
  if (const Field* n = fields->find("name")) {
    auto name = read_scalar(*n);
    FL_TRY(name);
    const bool lower =
        std::none_of(name->begin(), name->end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (!lower || !is_word(*name, "_-")) {
      return error(*n, "invalid workload name '" + *name + "': use [a-z0-9_-]");
    }
    w->name = *name;
    w->name_loc = loc(*n);
    w->label = *name;
    *label_loc = loc(*n);
    *label_path = n->path;
  }
  if (const Field* l = fields->find("label")) {
    auto label = read_nonempty(*l);
    FL_TRY(label);
    w->label = *label;
    *label_loc = loc(*l);
    *label_path = l->path;
  }
  if (const Field* p = fields->find("params")) {
    auto params = read_map(*p, nullptr);
    FL_TRY(params);
    for (const auto& [key, field] : params->entries) {
      if (!is_word(key, "_.-")) {
        return key_error(field, "invalid parameter name '" + key + "': use [A-Za-z0-9_.-]");
      }
      auto value = read_scalar(field);
      FL_TRY(value);
      w->params.emplace_back(key, *value);
      w->param_key_locs.push_back(loc(field.key));
      w->param_locs.push_back(loc(field));
    }
  }
  if (const Field* m = fields->find("metrics")) FL_TRY(parse_metric_decls(*m, w));
  if (const Field* x = fields->find("exclusive")) {
    auto on = read_bool(*x);
    FL_TRY(on);
    w->exclusive = *on;
  }
  return require(*fields, f, {"name"});
}

// metrics: {latency_ns: {unit: ns, better: lower, kind: timing}}; a scalar, or `pattern:`,
// is a regex for `output: regex` (checked with the workload catalog).
Status Parser::parse_metric_decls(const Field& f, WorkloadSpec* w) const {
  auto metrics = read_map(f, nullptr);
  FL_TRY(metrics);
  for (const auto& [name, field] : metrics->entries) {
    if (!is_word(name, "_.-")) {
      return key_error(field, "invalid metric name '" + name + "': use [A-Za-z0-9_.-]");
    }
    if (field.value.IsScalar()) {
      auto pattern = read_nonempty(field);
      FL_TRY(pattern);
      w->metric_patterns.emplace_back(name, *pattern);
      w->pattern_locs.push_back(loc(field));
      continue;
    }
    auto decl = read_map(field, &kMetricDeclKeys);
    FL_TRY(decl);
    if (const Field* p = decl->find("pattern")) {
      auto pattern = read_nonempty(*p);
      FL_TRY(pattern);
      w->metric_patterns.emplace_back(name, *pattern);
      w->pattern_locs.push_back(loc(*p));
    }
    MetricInfo info;
    info.known = true;
    if (const Field* u = decl->find("unit")) {
      auto unit = read_scalar(*u);
      FL_TRY(unit);
      info.unit = *unit;
    }
    if (const Field* b = decl->find("better")) {
      auto better = read_better(*b);
      FL_TRY(better);
      info.better = *better;
    }
    if (const Field* k = decl->find("kind")) {
      auto text = read_scalar(*k);
      FL_TRY(text);
      auto kind = parse_metric_kind(*text);
      if (!kind) return error(*k, "unknown kind '" + *text + "' (valid: count, timing)");
      info.kind = *kind;
    }
    if (const Field* p = decl->find("primary")) FL_TRY(parse_primary(*p, name, info, w));
    w->metrics.emplace_back(name, info);
  }
  return {};
}

// `primary: true` on a timing: adaptive repetitions watch it. A count never needs more reps.
Status Parser::parse_primary(const Field& f, const std::string& name, const MetricInfo& info,
                             WorkloadSpec* w) const {
  auto on = read_bool(f);
  FL_TRY(on);
  if (!*on) return {};
  if (info.kind != MetricKind::kTiming) {
    return error(f,
                 "only a timing can be primary (a count needs no more reps); add 'kind: "
                 "timing' if '" +
                     name + "' is one");
  }
  w->primary_metrics.push_back(name);
  return {};
}

Result<Better> Parser::read_better(const Field& f) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  auto better = parse_better(*text);
  if (!better) return error(f, "unknown direction '" + *text + "' (valid: higher, lower, none)");
  return *better;
}

}  // namespace foliolab::loader_internal
