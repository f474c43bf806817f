// `gate --confirm N`, the reruns: each failing case with runs behind it is run again N times,
// interleaved (a fresh baseline session of the case's baseline runs, then a fresh candidate
// session of its candidate runs, each a normal results session), then judged on the reruns
// alone and decided by analysis/gate_confirm.h. A session in which a run could not complete is
// run again, up to kInfraRetries times.
#pragma once

#include <functional>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "model/experiment.h"
#include "runner/session.h"

namespace foliolab {

// Runs these runs of this experiment as one new results session (cli: RunContext::run).
using ExperimentSessionRun =
    std::function<Result<SessionSummary>(const Experiment& exp, const std::vector<Run>& runs)>;

struct GateConfirmSpec {
  const std::vector<GateRule>& rules;
  const Experiment& base;  // each side's experiment as its session ran it (experiment.yaml)
  const Experiment& cand;
  const CompareOptions& options;
  int rounds = 0;
};

// A variant's run ids: its runs' names without their "<session>/" prefix, once each.
std::vector<std::string> variant_run_ids(const VariantInfo& v);

// Reruns every kFail case that has runs (group_index >= 0) and decides it; then recounts.
// Errors are what stopped a session from being made at all (a broken results root, runs of
// the report missing from their experiment).
Result<GateReport> confirm_gate_failures(GateReport report, const GateConfirmSpec& spec,
                                         const ExperimentSessionRun& run_session);

}  // namespace foliolab
