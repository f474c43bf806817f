#include "analysis/gate_confirm.h"

#include <algorithm>

namespace foliolab {

bool run_incomplete(const RunRecord& r) {
  return r.status == "timed-out" || r.failure == FailureClass::kHost;
}

std::optional<std::string> incomplete_run(const std::vector<RunRecord>& records,
                                          const std::vector<std::string>& wanted) {
  for (const std::string& id : wanted) {
    auto r = std::find_if(records.begin(), records.end(),
                          [&](const RunRecord& x) { return x.id.run_id == id; });
    if (r == records.end()) return id + ": no record";
    if (run_incomplete(*r)) return id + ": " + (r->reason.empty() ? r->status : r->reason);
  }
  return std::nullopt;
}

std::optional<GateCase> rerun_case(const GateCase& original, const GateReport& rerun) {
  const GateCase* first = nullptr;
  for (const GateCase& c : rerun.cases) {
    if (c.rule != original.rule || c.metric != original.metric) continue;
    if (c.group == original.group) return c;
    if (!first) first = &c;
  }
  if (first) return *first;
  return std::nullopt;
}

void take_judgement(GateRerun& rerun, const GateCase& judged) {
  rerun.outcome = judged.outcome;
  rerun.finding = judged.finding;
  rerun.base_median = judged.base_median;
  rerun.cand_median = judged.cand_median;
  rerun.delta = judged.delta;
}

GateCase confirm_case(GateCase original, GateRerun rerun) {
  if (!rerun.completed) {
    original.outcome = GateOutcome::kInfra;
  } else {
    original.outcome =
        rerun.outcome == GateOutcome::kFail ? GateOutcome::kFail : GateOutcome::kFlaky;
  }
  original.rerun = std::move(rerun);
  return original;
}

}  // namespace foliolab
