#include "model/loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "model/project.h"
#include "util/text.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace loader_internal {

Result<Experiment> Parser::parse(const YAML::Node& root) const {
  Experiment exp;
  exp.file = file();
  const Field top = YamlReader::root(root);
  const ValueType& table = file_keys::experiment();
  auto fields = read_map(top, &table.names());
  FL_TRY(fields);
  // Document order, so that the first problem in the file is the one reported.
  for (const auto& [key, field] : fields->entries) FL_TRY(parse_top_field(key, field, &exp));
  FL_TRY(require(*fields, top, table.required()));
  FL_TRY(check_references(exp));
  return exp;
}

SourceLoc Parser::loc(const YAML::Node& node) const {
  const YamlPos at = pos(node);
  return SourceLoc{file(), at.line, at.column};
}

SourceLoc Parser::loc(const Field& f) const {
  const YamlPos at = pos(f);
  return SourceLoc{file(), at.line, at.column};
}

Error Parser::error(const SourceLoc& at, const std::string& path,
                    const std::string& message) const {
  return YamlReader::error(YamlPos{at.line, at.column}, path, message);
}

std::string Parser::first_at(const SourceLoc& l) const {
  return YamlReader::first_at(YamlPos{l.line, l.column});
}

Result<void> Parser::parse_top_field(const std::string& key, const Field& f,
                                     Experiment* exp) const {
  if (key == "name") {
    exp->name_loc = loc(f);
    return parse_name(f, &exp->name);
  }
  if (key == "description") {
    auto text = read_scalar(f, /*single_line=*/false);
    FL_TRY(text);
    exp->description = *text;
    return {};
  }
  if (key == "kernels") return parse_kernels(f, exp);
  if (key == "archs") return parse_archs(f, exp);
  if (key == "machine") return parse_machine(f, &exp->machine);
  if (key == "knobs") return parse_knob_sets(f, &exp->knob_sets);
  if (key == "workloads") return parse_workloads(f, &exp->workloads);
  if (key == "exclude") return parse_excludes(f, &exp->excludes);
  if (key == "expect") return parse_expectations(f, &exp->expectations);
  if (key == "gate") return parse_gate_rules(f, &exp->gate_rules);
  if (key == "thresholds") return parse_thresholds(f, &exp->thresholds);
  if (key == "exclusive") {
    auto on = read_bool(f);
    FL_TRY(on);
    exp->exclusive = *on;
    return {};
  }
  if (key == "prepare") return parse_prepare(f, &exp->state.prepare);
  if (key == "cgroup") return parse_cgroup(f, &exp->state.cgroup);
  if (key == "monitor") return parse_monitor(f, &exp->state.monitor);
  if (key == "evidence") return parse_evidence(f, &exp->evidence);
  if (key == "repeat") return parse_repeat(f, exp);
  if (key == "warmup") return parse_warmup(f, exp);
  // read_map admits only file_keys::experiment()'s keys: this is "timeout".
  auto n = read_int(f);
  FL_TRY(n);
  if (*n <= 0) return error(f, "must be a positive number of seconds");
  exp->timeout_s = static_cast<int>(*n);
  exp->timeout_loc = loc(f);
  return {};
}

Result<void> Parser::parse_name(const Field& f, std::string* out) const {
  auto name = read_scalar(f);
  FL_TRY(name);
  if (!is_word(*name, "._-")) {
    return error(f, "invalid name '" + *name + "': use letters, digits, '.', '_' and '-'");
  }
  *out = *name;
  return {};
}

Error Parser::unknown_choice(const Field& f, const std::string& name, const Keys& valid,
                             const std::string& what) const {
  return error(f, "unknown " + what + " '" + name + "'" + did_you_mean(name, valid) +
                      " (valid: " + join(valid, ", ") + ")");
}

Result<std::string> Parser::read_choice(const Field& f, const Keys& valid,
                                        const std::string& what) const {
  auto name = read_scalar(f);
  FL_TRY(name);
  if (std::find(valid.begin(), valid.end(), *name) != valid.end()) return *name;
  return unknown_choice(f, *name, valid, what);
}

Result<void> Parser::check_rules(const Fields& fields, const ValueType& table) const {
  const auto at = [&](const std::string& k) -> const Field* { return fields.find(k); };
  // The rule's `why` at `f`, "{key}" read as f's key.
  const auto broken = [&](const Field& f, std::string why) {
    if (const size_t i = why.find("{key}"); i != std::string::npos) {
      why.replace(i, 5, f.key.Scalar());
    }
    return key_error(f, why);
  };
  for (const KeyRule& r : table.rules) {
    const Field* given = at(r.key);
    if (!given ||
        (!r.value.empty() && !(given->value.IsScalar() && given->value.Scalar() == r.value))) {
      continue;
    }
    for (const std::string& k : r.excludes) {
      const Field* other = at(k);
      if (!other) continue;
      // At the later of the two in the file: the one written second is the mistake.
      const auto place = [&](const Field* f) {
        const SourceLoc l = loc(f->key);
        return std::pair(l.line, l.column);
      };
      return broken(place(other) > place(given) ? *other : *given, r.why);
    }
    const bool any = r.needs_any.empty() || std::any_of(r.needs_any.begin(), r.needs_any.end(), at);
    const bool all = std::all_of(r.needs.begin(), r.needs.end(), at);
    const Field* other = r.needs_key.empty() ? nullptr : at(r.needs_key);
    const bool valued = r.needs_key.empty() || (other && other->value.IsScalar() &&
                                                other->value.Scalar() == r.needs_value);
    if (!any || !all || !valued) return broken(*given, r.why);
  }
  return {};
}

Result<void> Parser::check_references(const Experiment& exp) const {
  for (size_t k = 0; k < exp.kernels.size(); ++k) {
    const KernelSpec& kernel = exp.kernels[k];
    for (size_t i = 0; i < kernel.archs.size(); ++i) {
      if (std::find(exp.archs.begin(), exp.archs.end(), kernel.archs[i]) != exp.archs.end()) {
        continue;
      }
      return error(kernel.arch_locs[i],
                   yaml_index_path(yaml_index_path("kernels", k) + ".archs", i),
                   "arch '" + std::string(arch_info(kernel.archs[i]).name) +
                       "' is not in the experiment's archs (" + arch_names(exp) + ")");
    }
  }
  for (size_t i = 0; i < exp.excludes.size(); ++i) {
    FL_TRY(check_selector(exp, exp.excludes[i], yaml_index_path("exclude", i)));
  }
  for (size_t i = 0; i < exp.expectations.size(); ++i) {
    const Expectation& e = exp.expectations[i];
    const std::string path = yaml_index_path("expect", i);
    FL_TRY(check_selector(exp, e.runs, path + ".runs"));
    if (e.ratio_to) FL_TRY(check_selector(exp, *e.ratio_to, path + ".ratio_to"));
  }
  for (size_t i = 0; i < exp.gate_rules.size(); ++i) {
    FL_TRY(check_selector(exp, exp.gate_rules[i].runs, yaml_index_path("gate", i) + ".runs"));
  }
  return {};
}

std::string Parser::arch_names(const Experiment& exp) {
  Keys names;
  for (Arch a : exp.archs) names.emplace_back(arch_info(a).name);
  return join(names, ", ");
}

Result<void> Parser::check_selector(const Experiment& exp, const RunSelector& sel,
                                    const std::string& path) const {
  Keys kernels, knob_sets, labels;
  for (const auto& k : exp.kernels) kernels.push_back(k.name);
  for (const auto& s : exp.knob_sets) knob_sets.push_back(s.name);
  for (const auto& w : exp.workloads) labels.push_back(w.label);
  auto check = [&](const std::string& value, const Keys& valid, const char* key, const char* what,
                   const SourceLoc& at) -> Result<void> {
    if (value.empty() || std::find(valid.begin(), valid.end(), value) != valid.end()) return {};
    std::string message = "no " + std::string(what) + " named '" + value + "'";
    const std::string near = did_you_mean(value, valid);
    message += near.empty() ? " (defined: " + join(valid, ", ") + ")" : near;
    return error(at, path + "." + key, message);
  };
  FL_TRY(check(sel.kernel, kernels, "kernel", "kernel", sel.kernel_loc));
  if (sel.arch && std::find(exp.archs.begin(), exp.archs.end(), *sel.arch) == exp.archs.end()) {
    return error(sel.arch_loc, path + ".arch",
                 "arch '" + std::string(arch_info(*sel.arch).name) +
                     "' is not in the experiment's archs (" + arch_names(exp) + ")");
  }
  FL_TRY(check(sel.knobs, knob_sets, "knobs", "knob set", sel.knobs_loc));
  return check(sel.workload, labels, "workload", "workload label", sel.workload_loc);
}

}  // namespace loader_internal

namespace {

// The experiment in a parsed document (a Null node for an empty file).
Result<Experiment> experiment_from(const YAML::Node& root, const std::string& file_name) {
  auto exp = loader_internal::parse_document<Experiment>(
      root, file_name, "experiment file",
      [&](const loader_internal::Parser& p) { return p.parse(root); });
  if (exp.ok()) {
    exp->dir = std::filesystem::absolute(file_name).parent_path().lexically_normal().string();
    exp->project = project_of(exp->dir).string();
  }
  return exp;
}

}  // namespace

Result<Experiment> parse_experiment(const std::string& yaml_text, const std::string& file_name) {
  auto root = parse_yaml(yaml_text, file_name, "experiment file");
  FL_TRY(root);
  return experiment_from(*root, file_name);
}

Result<Experiment> load_experiment(const std::string& path) {
  auto root = load_yaml_file(path, "experiment file");
  FL_TRY(root);
  return experiment_from(*root, path);
}

}  // namespace foliolab
