// The key tables of foliolab's YAML files (model/key_table.h): experiments, image recipes,
// known-issues files and a project's foliolab.yaml. The loaders (model/loader*.cc,
// model/project.cc) check keys against them; `foliolab schema` prints them as JSON Schema.
// Each map the loader reads has its table here; experiment() and the other file tables are made
// of them.
#pragma once

#include <string>
#include <vector>

#include "model/key_table.h"

namespace foliolab::file_keys {

// The file kinds `foliolab schema` knows, with their tables: experiment, recipe, known-issues,
// project.
struct FileKind {
  std::string name;
  std::string title;  // "foliolab experiment"
  const ValueType& (*table)();
};
const std::vector<FileKind>& file_kinds();
const FileKind* find_file_kind(const std::string& name);

// Experiment files.
const ValueType& experiment();
const ValueType& kernel();
const ValueType& kernel_git_source();  // kernels[].source: {git, ref}
const ValueType& kernel_git_range();   // kernels[].patches: {git, repo}
const ValueType& machine();
const ValueType& numa();
const ValueType& numa_node();
const ValueType& swap();
const ValueType& zswap();
const ValueType& knob_set();
const ValueType& workload();
const ValueType& workload_params();
const ValueType& custom_build();  // workloads[].params.build
const ValueType& metric_decl();   // workloads[].metrics.NAME as a map
const ValueType& selector();      // runs, ratio_to, exclude[]
const ValueType& expectation();
const ValueType& gate_rule();
const ValueType& threshold_parts();  // thresholds.NAME as a map: {abs, rel}
const ValueType& adaptive_repeat();  // repeat as a map
const ValueType& prepare_step();
const ValueType& fragment();
const ValueType& cgroup();
const ValueType& monitor();
const ValueType& evidence();          // `evidence:`: events, kprobes, function_profile, census
const ValueType& evidence_event();    // evidence.events[] as a map
const ValueType& evidence_kprobe();   // evidence.kprobes[] as a map
const ValueType& function_profile();  // evidence.function_profile

// An expectation's comparisons, in CompareOp's order; the stats, in Statistic's order.
const std::vector<std::string>& comparison_keys();
const std::vector<std::string>& stat_names();

// Image recipes (images/*.yaml).
const ValueType& image_recipe();
const ValueType& recipe_file();

// Known-issues files.
const ValueType& known_issues_file();
const ValueType& known_issue();
// The expected effects of a known issue, exactly one of which is given.
const std::vector<std::string>& known_effects();

// A project's foliolab.yaml.
const ValueType& project();

}  // namespace foliolab::file_keys
