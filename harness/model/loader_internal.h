// The experiment loader's parser, shared by its section files (private to model/loader*.cc):
// loader.cc (top-level keys, references between sections, entry points), loader_kernels.cc,
// loader_machine.cc (archs, machine, numa), loader_state.cc (swap, zswap, prepare, cgroup,
// monitor), loader_knobs.cc, loader_workloads.cc,
// loader_expect.cc (exclude, expect, gate, thresholds and the run selectors they share) and
// loader_repeat.cc (repeat, warmup), loader_evidence.cc (evidence).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"
#include "model/image_recipe.h"
#include "model/key_table.h"
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
  Result<void> parse_image_recipe(const YAML::Node& root, ImageRecipe* r) const;

 private:
  using YamlReader::error;
  using YamlReader::first_at;

  Result<void> parse_top_field(const std::string& key, const Field& f, Experiment* exp) const;

  // Locations as the Experiment keeps them.
  SourceLoc loc(const YAML::Node& node) const;
  SourceLoc loc(const Field& f) const;  // at the key for an empty value
  Error error(const SourceLoc& at, const std::string& path, const std::string& message) const;
  std::string first_at(const SourceLoc& l) const;

  Result<void> parse_name(const Field& f, std::string* out) const;
  // "unknown <what> 'x'; did you mean ...? (valid: ...)"
  Error unknown_choice(const Field& f, const std::string& name, const Keys& valid,
                       const std::string& what) const;
  // A scalar that must be one of `valid`.
  Result<std::string> read_choice(const Field& f, const Keys& valid, const std::string& what) const;
  // The table's KeyRules over a map's fields: the first broken one's `why` (model/key_table.h).
  Result<void> check_rules(const Fields& fields, const ValueType& table) const;

  // loader_repeat.cc
  Result<void> parse_repeat(const Field& f, Experiment* exp) const;
  Result<void> parse_warmup(const Field& f, Experiment* exp) const;
  Result<int> read_repeat_count(const Field& f) const;

  // loader_kernels.cc
  Result<void> parse_kernels(const Field& f, Experiment* exp) const;
  Result<void> parse_source(const Field& s, KernelSpec* k) const;
  Result<void> parse_range(const Field& p, KernelSpec* k) const;
  Result<void> parse_kernel(const Field& f, KernelSpec* k, SourceLoc* name_loc) const;
  Result<void> parse_fragments(const Field& f, KernelSpec* k) const;
  Result<void> parse_options(const Field& f, KeyValues* out) const;

  // loader_machine.cc
  Result<void> parse_archs(const Field& f, Experiment* exp) const;
  Result<void> parse_arch_list(const Field& f, const char* what_if_empty, std::vector<Arch>* archs,
                               std::vector<SourceLoc>* locs) const;
  Result<Arch> read_arch(const Field& f) const;
  Result<void> parse_machine(const Field& f, MachineSpec* m) const;
  Result<void> parse_guest_size(const YamlFields& fields,
                                MachineSpec* m) const;  // cpus, memory, numa
  Result<void> parse_machine_swap(const YamlFields& fields, MachineSpec* m) const;  // swap, zswap
  Result<void> parse_numa(const Field& f, bool memory_given, MachineSpec* m) const;
  Result<void> parse_distance(const Field& f, MachineSpec* m) const;

  // loader_state.cc
  Result<void> parse_swap(const Field& f, SwapSpec* s) const;
  Result<void> parse_zswap(const Field& f, ZswapSpec* z) const;
  Result<void> parse_prepare(const Field& f, std::vector<PrepareStep>* out) const;
  Result<void> parse_fragment(const Field& f, PrepareStep* p) const;
  Result<void> parse_churn(const YamlFields& fields, PrepareStep* p) const;
  Result<void> parse_cgroup(const Field& f, CgroupSpec* c) const;
  Result<void> parse_monitor(const Field& f, MonitorSpec* m) const;

  // loader_evidence.cc
  Result<void> parse_evidence(const Field& f, EvidenceSpec* e) const;
  Result<void> parse_event_count(const Field& item, EventCount* ev) const;
  Result<void> parse_kprobe_count(const Field& item, KprobeCount* k) const;
  // An item given as NAME, or as a map of `table` whose required `key` names it: the map's
  // fields (none for a scalar) and the field holding the name.
  Result<void> read_named(const Field& item, const ValueType& table, const std::string& key,
                          YamlFields* fields, const Field** name) const;
  Result<void> parse_census(const Field& f, EvidenceSpec* e) const;

  // loader_knobs.cc
  Result<void> parse_knob_sets(const Field& f, std::vector<KnobSet>* out) const;
  Result<void> parse_knob_set(const Field& f, KnobSet* set) const;
  Result<void> parse_paths(const Field& f, std::string_view root, KeyValues* out) const;
  Result<void> check_path(const Field& field, const std::string& key, std::string_view root) const;

  // loader_workloads.cc
  Result<void> parse_workloads(const Field& f, std::vector<WorkloadSpec>* out) const;
  Result<void> parse_workload(const Field& f, WorkloadSpec* w, SourceLoc* label_loc,
                              std::string* label_path) const;
  Result<void> parse_params(const Field& p, WorkloadSpec* w) const;
  Result<std::string> parse_custom_param(const std::string& key, const Field& f,
                                         WorkloadSpec* w) const;
  Result<std::vector<std::string>> read_argv(const Field& f, const char* what) const;
  Result<void> parse_metric_decls(const Field& f, WorkloadSpec* w) const;
  Result<void> parse_pattern(const std::string& name, const Fields& decl, WorkloadSpec* w) const;
  Result<void> parse_primary(const Field& f, const std::string& name, const MetricInfo& info,
                             WorkloadSpec* w) const;
  Result<Better> read_better(const Field& f) const;

  // loader_expect.cc
  Result<void> parse_gate_rules(const Field& f, std::vector<GateRule>* out) const;
  Result<void> parse_gate_rule(const Field& f, GateRule* g) const;
  Result<void> parse_selector(const Field& f, RunSelector* sel) const;
  Result<void> parse_excludes(const Field& f, std::vector<RunSelector>* out) const;
  Result<void> parse_expectations(const Field& f, std::vector<Expectation>* out) const;
  Result<void> parse_expectation(const Field& f, Expectation* e) const;
  Result<void> parse_comparison(const Field& item, const Fields& fields, Expectation* e,
                                std::string* value_text) const;
  static std::string generated_name(const Expectation& e, const std::string& value_text);

  // `thresholds:`: metric (or prefix*) -> 16, "30%" or {abs: 16, rel: 30%}.
  Result<void> parse_thresholds(const Field& f, ThresholdRules* out) const;
  Result<CountThreshold> read_threshold(const Field& f) const;

  // "5%" (after `prefix`, e.g. "<="), a fraction in [0, inf): max_regression, regressed.
  Result<double> read_percent(const Field& f, std::string_view prefix) const;

  // loader_known_issues.cc
  Result<void> parse_known_issue(const Field& f, KnownIssue* k) const;
  Result<void> parse_known_effect(const Field& f, const Fields& fields, KnownIssue* k) const;

  // loader_image_recipe.cc
  Result<void> parse_recipe_packages(const Field& f, ImageRecipe* r) const;
  Result<void> parse_recipe_files(const Field& f, ImageRecipe* r) const;

  // loader.cc: names used across sections, resolved once the whole document is read.
  Result<void> check_references(const Experiment& exp) const;
  static std::string arch_names(const Experiment& exp);
  Result<void> check_selector(const Experiment& exp, const RunSelector& sel,
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
