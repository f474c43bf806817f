// What the count and the timing evaluators (bisect/bisect_counts.h, bisect/bisect_timings.h)
// share: the candidates and the metric they follow, the ends' reps once observed (taken back
// from the log on `bisect resume`), one session per measurement, and the interleaved boots of a
// confirmation. Each evaluator adds how it classifies a step and when a culprit is confirmed.
#pragma once

#include <string>
#include <vector>

#include "bisect/bisect_candidates.h"
#include "bisect/bisect_driver.h"

namespace foliolab {

class CandidateEvaluator : public BisectEvaluator {
 public:
  size_t candidates() const override { return c_.runs.size(); }
  std::string describe(size_t i) const override { return c_.names[i]; }
  // The ends' reps from a logged step that had a class.
  void restore(const BisectStep& step) override;
  const BisectCandidates& candidate_list() const { return c_; }

 protected:
  CandidateEvaluator(BisectCandidates c, std::string metric, SessionRun run_session)
      : c_(std::move(c)), metric_(std::move(metric)), run_session_(std::move(run_session)) {}
  // At least two candidates, the good one first and the bad one last.
  static Result<void> check_candidates(const BisectCandidates& c);

  // The metric's values in each of `runs` of `exp`, measured in one session (its path in
  // *session).
  Result<std::vector<std::vector<double>>> measure(const Experiment& exp,
                                                   const std::vector<Run>& runs,
                                                   std::string* session) const;
  // A confirmation's measurements: `pair` (the parent's run, then the culprit's) in `boots`
  // fresh sessions, interleaved; each side's reps pooled over them. `complete`: every boot
  // measured both sides.
  struct Interleaved {
    std::vector<double> before, after;
    bool complete = true;
  };
  Result<Interleaved> measure_interleaved(const Experiment& exp, const std::vector<Run>& pair,
                                          int boots, std::vector<std::string>& sessions) const;

  BisectCandidates c_;
  std::string metric_;
  SessionRun run_session_;
  std::vector<double> good_, bad_;  // the ends' reps once observed
};

}  // namespace foliolab
