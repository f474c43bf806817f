// Plan-time checks of an experiment against the workload catalog (model/workload_catalog.h):
// workload names, parameter names and values, a custom workload's output adapter and patterns,
// and the metrics that expectations and gate rules name (workload metrics and counter deltas).
#pragma once

#include <string>
#include <string_view>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// Every problem, one per line: "file:line:col: workloads[0].params.sise: unknown parameter
// 'sise' of workload 'fault'; did you mean 'size'?".
Result<void> validate_workloads(const Experiment& exp);

// Whether `metric` can exist in the runs `sel` picks: a metric their workloads print, or a
// counter delta of a known shape (vmstat.<name>, mthp.<N>kB.<stat>, meminfo.<field> of those
// the agent snapshots, tap.pass|fail|skip for TAP output). The message carries no location.
Result<void> check_metric(const Experiment& exp, const RunSelector& sel, const std::string& metric);

// A workload's parameter as the experiment gives it, else `def`.
std::string param_value(const WorkloadSpec& w, std::string_view key, std::string_view def);
// ... else the catalog's default ("" for a parameter the catalog does not know).
std::string param_or_default(const WorkloadSpec& w, std::string_view key);

}  // namespace foliolab
