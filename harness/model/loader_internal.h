// The experiment loader's parser, shared by its section files (private to model/loader*.cc):
// loader.cc (top-level keys, references between sections, entry points), loader_kernels.cc,
// loader_machine.cc (archs, machine, numa), loader_state.cc (swap, zswap, prepare, cgroup,
// monitor), loader_knobs.cc, loader_workloads.cc,
// loader_expect.cc (exclude, expect, gate, thresholds and the run selectors they share) and
// loader_repeat.cc (repeat, warmup).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"
#include "model/image_recipe.h"
#include "model/known_issue.h"
#include "util/result.h"
#include "util/yaml_reader.h"

namespace foliolab::loader_internal {

using Field = YamlField;
using Fields = YamlFields;
using Keys = std::vector<std::string>;

class Parser : public YamlReader {
 public:
  explicit Parser(std::string file) : YamlReader(std::move(file)) {}

  Result<Experiment> parse(const YAML::Node& root) const;
  // loader_known_issues.cc: a known-issues file (model/known_issue.h).
  Result<std::vector<KnownIssue>> parse_known_issues(const YAML::Node& root) const;
  // loader_image_recipe.cc: a Debian root filesystem recipe (model/image_recipe.h).
  Status parse_image_recipe(const YAML::Node& root, ImageRecipe* r) const;

 private:
  using YamlReader::error;
  using YamlReader::first_at;

  Status parse_top_field(const std::string& key, const Field& f, Experiment* exp) const;

  // Locations as the Experiment keeps them.
  SourceLoc loc(const YAML::Node& node) const;
  SourceLoc loc(const Field& f) const;  // at the key for an empty value
  Error error(const SourceLoc& at, const std::string& path, const std::string& message) const;
  std::string first_at(const SourceLoc& l) const;

  Status parse_name(const Field& f, std::string* out) const;
  // "unknown <what> 'x'; did you mean ...? (valid: ...)"
  Error unknown_choice(const Field& f, const std::string& name, const Keys& valid,
                       const std::string& what) const;
  // A scalar that must be one of `valid`.
  Result<std::string> read_choice(const Field& f, const Keys& valid, const std::string& what) const;

  // loader_repeat.cc
  Status parse_repeat(const Field& f, Experiment* exp) const;
  Status parse_warmup(const Field& f, Experiment* exp) const;
  Result<int> read_repeat_count(const Field& f) const;

  // loader_kernels.cc
  Status parse_kernels(const Field& f, Experiment* exp) const;
  Status parse_source(const Field& s, KernelSpec* k) const;
  Status parse_range(const Field& p, KernelSpec* k) const;
  Status parse_kernel(const Field& f, KernelSpec* k, SourceLoc* name_loc) const;
  Status parse_fragments(const Field& f, KernelSpec* k) const;
  Status parse_options(const Field& f, KeyValues* out) const;

  // loader_machine.cc
  Status parse_archs(const Field& f, Experiment* exp) const;
  Status parse_arch_list(const Field& f, const char* what_if_empty, std::vector<Arch>* archs,
                         std::vector<SourceLoc>* locs) const;
  Result<Arch> read_arch(const Field& f) const;
  Status parse_machine(const Field& f, MachineSpec* m) const;
  Status parse_guest_size(const YamlFields& fields, MachineSpec* m) const;    // cpus, memory, numa
  Status parse_machine_swap(const YamlFields& fields, MachineSpec* m) const;  // swap, zswap
  Status parse_numa(const Field& f, bool memory_given, MachineSpec* m) const;
  Status parse_distance(const Field& f, MachineSpec* m) const;

  // loader_state.cc
  Status parse_swap(const Field& f, SwapSpec* s) const;
  Status parse_zswap(const Field& f, ZswapSpec* z) const;
  Status parse_prepare(const Field& f, std::vector<PrepareStep>* out) const;
  Status parse_fragment(const Field& f, PrepareStep* p) const;
  Status parse_churn(const YamlFields& fields, PrepareStep* p) const;
  Status parse_cgroup(const Field& f, CgroupSpec* c) const;
  Status parse_monitor(const Field& f, MonitorSpec* m) const;

  // loader_knobs.cc
  Status parse_knob_sets(const Field& f, std::vector<KnobSet>* out) const;
  Status parse_knob_set(const Field& f, KnobSet* set) const;
  Status parse_paths(const Field& f, std::string_view root, KeyValues* out) const;
  Status check_path(const Field& field, const std::string& key, std::string_view root) const;

  // loader_workloads.cc
  Status parse_workloads(const Field& f, std::vector<WorkloadSpec>* out) const;
  Status parse_workload(const Field& f, WorkloadSpec* w, SourceLoc* label_loc,
                        std::string* label_path) const;
  Status parse_params(const Field& p, WorkloadSpec* w) const;
  Result<std::string> parse_custom_param(const std::string& key, const Field& f,
                                         WorkloadSpec* w) const;
  Result<std::vector<std::string>> read_argv(const Field& f, const char* what) const;
  Status parse_metric_decls(const Field& f, WorkloadSpec* w) const;
  Status parse_pattern(const std::string& name, const Fields& decl, WorkloadSpec* w) const;
  Status parse_primary(const Field& f, const std::string& name, const MetricInfo& info,
                       WorkloadSpec* w) const;
  Result<Better> read_better(const Field& f) const;

  // loader_expect.cc
  Status parse_gate_rules(const Field& f, std::vector<GateRule>* out) const;
  Status parse_gate_rule(const Field& f, GateRule* g) const;
  Status parse_selector(const Field& f, RunSelector* sel) const;
  Status parse_excludes(const Field& f, std::vector<RunSelector>* out) const;
  Status parse_expectations(const Field& f, std::vector<Expectation>* out) const;
  Status parse_expectation(const Field& f, Expectation* e) const;
  Status parse_comparison(const Field& item, const Fields& fields, Expectation* e,
                          std::string* value_text) const;
  static std::string generated_name(const Expectation& e, const std::string& value_text);

  // `thresholds:`: metric (or prefix*) -> 16, "30%" or {abs: 16, rel: 30%}.
  Status parse_thresholds(const Field& f, ThresholdRules* out) const;
  Result<CountThreshold> read_threshold(const Field& f) const;

  // "5%" (after `prefix`, e.g. "<="), a fraction in [0, inf): max_regression, regressed.
  Result<double> read_percent(const Field& f, std::string_view prefix) const;

  // loader_known_issues.cc
  Status parse_known_issue(const Field& f, KnownIssue* k) const;
  Status parse_known_effect(const Field& f, const Fields& fields, KnownIssue* k) const;

  // loader_image_recipe.cc
  Status parse_recipe_packages(const Field& f, ImageRecipe* r) const;
  Status parse_recipe_files(const Field& f, ImageRecipe* r) const;

  // loader.cc: names used across sections, resolved once the whole document is read.
  Status check_references(const Experiment& exp) const;
  static std::string arch_names(const Experiment& exp);
  Status check_selector(const Experiment& exp, const RunSelector& sel,
                        const std::string& path) const;
};

// `parse` run on a parsed document (a Null node for an empty file: "file:1:1: empty <what>"),
// yaml-cpp's exceptions turned into located errors.
template <class T, class Parse>
Result<T> parse_document(const YAML::Node& root, const std::string& file_name,
                         const std::string& what, Parse parse) {
  if (root.IsNull()) return make_error(file_name + ":1:1: empty " + what);
  try {
    return parse(Parser(file_name));
  } catch (const std::exception& e) {
    return yaml_exception_error(e, file_name);
  }
}

}  // namespace foliolab::loader_internal
