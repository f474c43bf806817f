// Checks an Experiment against the project tree: the files it names must exist.
#pragma once

#include <filesystem>

#include "catalog/plan_limits.h"
#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// Every config fragment exists as kernel-config/<name>.config, every patch series as
// patches/<name> (a folder or an mbox), every image recipe as images/<name>.yaml, in the
// experiment's project or else in `data_root` (model/project.h); a foliolab.yaml marker reads;
// every non-"debian" kernel source exists
// as a directory or a .tar / .tar.{gz,xz,bz2} / .tgz file (relative sources are resolved
// against the folder of Experiment::file). All problems are reported, one per line, each as
// "file:line:col: key.path: message". Knob values are checked against the kernel where it is
// known before the build (validate_knobs in model/knob_catalog.h).
// Also checks the experiment against the workload catalog (validate_workloads in
// model/workload_check.h) and the plan-time limits (check_plan_limits in model/plan_limits.h;
// `results_root` "" = <data_root>/results).
Result<void> validate_project(const Experiment& exp, const std::filesystem::path& data_root,
                              const HostFacts& host = {}, const std::string& results_root = "");

// Where a kernel's `source:` points, or "" for "debian".
std::filesystem::path resolve_source(const Experiment& exp, const KernelSpec& kernel);
// A path from the experiment file (relative: to its folder).
std::filesystem::path resolve_path(const Experiment& exp, const std::string& path);

}  // namespace foliolab
