// `foliolab bisect` following a count: the candidates (bisect/bisect_candidates.h: knob sets,
// the prefixes of a patch series, the commits of a git range) each measured as a normal results
// session of their one run.
//
// A step's class is its value when every rep agrees (within the metric's practical threshold,
// model/metric_kind.h CountThreshold): "good" or "bad" when it equals an endpoint's, else the
// value itself (a third value: the search explores both halves). Reps that disagree make the
// step a skip. The culprit is confirmed against its parent in fresh boots, interleaved; for a
// series with one culprit, the series without it (the rest applied) must then measure like the
// good end, or the culprit is unconfirmed (a patch that only moves the count together with
// another one).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect_candidates.h"
#include "bisect/candidate_evaluator.h"
#include "model/experiment.h"
#include "model/metric_kind.h"
#include "runner/session.h"

namespace foliolab {

class CountBisectEvaluator : public CandidateEvaluator {
 public:
  // At least two candidates; the metric is a count (a timing: the reason it is refused).
  // `where` is the selector the candidates were made with (for the series-without check).
  static Result<std::unique_ptr<CountBisectEvaluator>> make(BisectCandidates candidates,
                                                            std::string metric, RunSelector where,
                                                            SessionRun run_session);

  Result<BisectStep> observe(size_t i) override;
  Result<BisectConfirmation> confirm(size_t parent, size_t culprit, int runs) override;

 private:
  CountBisectEvaluator(BisectCandidates c, std::string metric, RunSelector where,
                       SessionRun run_session, CountThreshold threshold)
      : CandidateEvaluator(std::move(c), std::move(metric), std::move(run_session)),
        where_(std::move(where)),
        threshold_(threshold) {}
  std::optional<std::string> classify(size_t i, const std::vector<double>& values) const;
  bool same(double a, double b) const;
  // The series without the culprit, measured once: "" when removing it undoes at least half of
  // its own change `own` (after - before), else why not.
  Result<std::string> without_check(size_t culprit, double own, BisectConfirmation& c);

  RunSelector where_;
  CountThreshold threshold_;  // values closer than this are the same (the catalog's)
};

}  // namespace foliolab
