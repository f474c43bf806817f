// The experiment loader: workloads (name, label, params, metric declarations).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "util/process.h"
#include "util/text.h"

namespace foliolab::loader_internal {
namespace {

// The canonical text of a list value in `params` (run ids, records): "[a.c, b.c]".
std::string list_text(const std::vector<std::string>& items) {
  return "[" + join(items, ", ") + "]";
}

}  // namespace

Result<void> Parser::parse_workloads(const Field& f, std::vector<WorkloadSpec>* out) const {
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

Result<void> Parser::parse_workload(const Field& f, WorkloadSpec* w, SourceLoc* label_loc,
                                    std::string* label_path) const {
  const ValueType& table = file_keys::workload();
  auto fields = read_map(f, &table.names());
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
    if (label->size() > kMaxRunPartLength) {
      return error(*l, fmt::format("a label of at most {} characters (it is part of every run "
                                   "id); this one has {}",
                                   kMaxRunPartLength, label->size()));
    }
    w->label = *label;
    *label_loc = loc(*l);
    *label_path = l->path;
  }
  if (const Field* p = fields->find("params")) FL_TRY(parse_params(*p, w));
  if (const Field* m = fields->find("metrics")) FL_TRY(parse_metric_decls(*m, w));
  if (const Field* x = fields->find("exclusive")) {
    auto on = read_bool(*x);
    FL_TRY(on);
    w->exclusive = *on;
  }
  return require(*fields, f, table.required());
}

Result<void> Parser::parse_params(const Field& p, WorkloadSpec* w) const {
  auto params = read_map(p, nullptr);
  FL_TRY(params);
  for (const auto& [key, field] : params->entries) {
    if (!is_word(key, "_.-")) {
      return key_error(field, "invalid parameter name '" + key + "': use [A-Za-z0-9_.-]");
    }
    std::string value;
    if (file_keys::workload_params().key(key)) {  // custom's source, build and setup
      auto text = parse_custom_param(key, field, w);
      FL_TRY(text);
      value = *text;
    } else {
      auto scalar = read_scalar(field);
      FL_TRY(scalar);
      value = *scalar;
    }
    w->params.emplace_back(key, value);
    w->param_key_locs.push_back(loc(field.key));
    w->param_locs.push_back(loc(field));
  }
  return {};
}

// `custom`'s structured parameters; returns the canonical text kept in `params`.
Result<std::string> Parser::parse_custom_param(const std::string& key, const Field& f,
                                               WorkloadSpec* w) const {
  if (key == "source") {
    if (f.value.IsScalar()) {
      auto one = read_scalar(f);
      FL_TRY(one);
      if (!one->empty()) w->sources = {*one};
      return *one;
    }
    auto files = read_argv(f, "a C file per item, e.g. source: [main.c, util.c]");
    FL_TRY(files);
    w->sources = *files;
    return list_text(*files);
  }
  if (key == "setup") {
    auto items = read_list(f, "must list at least one command, e.g. setup: [[mkdir, /tmp/d]]");
    FL_TRY(items);
    // The guest agent's limits (docs/guest-protocol.md, `setup`).
    if (items->size() > 64) return error(f, "more than 64 setup commands");
    std::vector<std::string> texts;
    for (const Field& item : *items) {
      auto argv = read_argv(item, "a command: [program, arg, ...] or 'program arg ...'");
      FL_TRY(argv);
      if (argv->size() > 256) return error(item, "a setup command of more than 256 arguments");
      w->setup.push_back(*argv);
      texts.push_back(format_argv(*argv));
    }
    return list_text(texts);
  }
  auto fields = read_map(f, &file_keys::custom_build().names());
  FL_TRY(fields);
  FL_TRY(require(*fields, f, file_keys::custom_build().required()));
  auto command = read_argv(*fields->find("command"), "the build command: [make, -j2] or 'make'");
  FL_TRY(command);
  auto dir = read_nonempty(*fields->find("dir"));
  FL_TRY(dir);
  auto output = read_nonempty(*fields->find("output"));
  FL_TRY(output);
  w->build = {*command, *dir, *output, loc(f)};
  return "{command: " + format_argv(*command) + ", dir: " + *dir + ", output: " + *output + "}";
}

// An argv: a list of scalars, or one scalar split on blanks (no shell: quotes are not
// interpreted, as for params.args).
Result<std::vector<std::string>> Parser::read_argv(const Field& f, const char* what) const {
  std::vector<std::string> argv;
  if (f.value.IsScalar()) {
    auto text = read_scalar(f);
    FL_TRY(text);
    std::istringstream in(*text);
    for (std::string tok; in >> tok;) argv.push_back(tok);
  } else if (f.value.IsSequence()) {
    auto items = read_list(f, nullptr);
    FL_TRY(items);
    for (const Field& item : *items) {
      auto tok = read_nonempty(item);
      FL_TRY(tok);
      argv.push_back(*tok);
    }
  } else {
    return error(f, std::string("expected ") + what + ", got " + yaml_type_name(f.value));
  }
  if (argv.empty()) return error(f, std::string("empty; expected ") + what);
  return argv;
}

// metrics: {latency_ns: {unit: ns, better: lower, kind: timing}}; a scalar, or `pattern:`,
// is a regex for `output: regex` (checked with the workload catalog).
Result<void> Parser::parse_metric_decls(const Field& f, WorkloadSpec* w) const {
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
    auto decl = read_map(field, &file_keys::metric_decl().names());
    FL_TRY(decl);
    FL_TRY(parse_pattern(name, *decl, w));
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

// A declaration's `pattern:` (or `regex:`, the same) and `aggregate:`.
Result<void> Parser::parse_pattern(const std::string& name, const Fields& decl,
                                   WorkloadSpec* w) const {
  FL_TRY(check_rules(decl, file_keys::metric_decl()));  // pattern or regex; aggregate with one
  const Field* p = decl.find("pattern");
  if (const Field* r = decl.find("regex")) p = r;
  const Field* a = decl.find("aggregate");
  if (!p) return {};
  auto pattern = read_nonempty(*p);
  FL_TRY(pattern);
  w->metric_patterns.emplace_back(name, *pattern);
  w->pattern_locs.push_back(loc(*p));
  if (a) {
    auto how = read_choice(*a, file_keys::metric_decl().values_of("aggregate"), "aggregate");
    FL_TRY(how);
    w->metric_aggregates.emplace_back(name, *how);
  }
  return {};
}

// `primary: true` on a timing: adaptive repetitions watch it. A count never needs more reps.
Result<void> Parser::parse_primary(const Field& f, const std::string& name, const MetricInfo& info,
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
