#include "bisect/candidate_evaluator.h"

#include <fmt/format.h>

namespace foliolab {

void CandidateEvaluator::restore(const BisectStep& step) {
  if (step.values.empty() || !step.cls) return;
  if (step.candidate == 0) good_ = step.values;
  if (step.candidate + 1 == c_.runs.size()) bad_ = step.values;
}

Result<void> CandidateEvaluator::check_candidates(const BisectCandidates& c) {
  if (c.runs.size() >= 2) return {};
  return make_error(
      fmt::format("bisect: at least two {} (the good one first, the bad one last)", c.kind));
}

Result<std::vector<std::vector<double>>> CandidateEvaluator::measure(const Experiment& exp,
                                                                     const std::vector<Run>& runs,
                                                                     std::string* session) const {
  return measure_runs(run_session_, exp, runs, metric_, session);
}

Result<CandidateEvaluator::Interleaved> CandidateEvaluator::measure_interleaved(
    const Experiment& exp, const std::vector<Run>& pair, int boots,
    std::vector<std::string>& sessions) const {
  Interleaved out;
  for (int k = 0; k < boots; ++k) {
    std::string session;  // parent then culprit in each session, fresh boots each time
    auto v = measure(exp, pair, &session);
    if (!v.ok()) return v.error();
    sessions.push_back(session);
    out.before.insert(out.before.end(), (*v)[0].begin(), (*v)[0].end());
    out.after.insert(out.after.end(), (*v)[1].begin(), (*v)[1].end());
    out.complete = out.complete && !(*v)[0].empty() && !(*v)[1].empty();
  }
  return out;
}

}  // namespace foliolab
