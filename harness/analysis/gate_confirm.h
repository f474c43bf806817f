// `gate --confirm N`, the decision: a failing case was rerun N times (a fresh baseline session
// then a fresh candidate session of its runs, interleaved); it stays a failure only when the
// reruns alone fail the rule again, else it is flaky. A session in which a run could not
// complete (the host failed, the run timed out) is retried up to kInfraRetries times; a round
// that still cannot complete makes the case "infra", which is neither a regression nor a pass.
// The reruns themselves are bisect/gate_rerun.h's.
#pragma once

#include <optional>
#include <vector>

#include "analysis/gate.h"
#include "results/run_record.h"

namespace foliolab {

inline constexpr int kInfraRetries = 3;

// A run that says nothing about the kernel under test: it timed out, or the host failed it
// (a build, QEMU that would not start). A guest panic or a failed workload is a result.
bool run_incomplete(const RunRecord& r);

// The first of `wanted` run ids that has no record in `records` or whose record is
// run_incomplete, with why ("<run id>: <reason>"); nullopt when all completed.
std::optional<std::string> incomplete_run(const std::vector<RunRecord>& records,
                                          const std::vector<std::string>& wanted);

// The case of `rerun` (the reruns judged alone) that is `original`'s: the same rule, metric and
// group title; else the rule's first case (a kNoMatch one when the reruns lack the metric).
std::optional<GateCase> rerun_case(const GateCase& original, const GateReport& rerun);

// Copies the reruns' own case (its outcome, finding and numbers) into `rerun`.
void take_judgement(GateRerun& rerun, const GateCase& judged);

// The original failing case as the reruns decide it: kInfra when they did not complete, kFail
// when their own case fails, else kFlaky. The rerun is kept in the case.
GateCase confirm_case(GateCase original, GateRerun rerun);

}  // namespace foliolab
