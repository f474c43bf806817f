// `foliolab bisect` following a count: the candidates (runner/bisect_candidates.h: knob sets,
// the prefixes of a patch series, the commits of a git range) each measured as a normal results
// session of their one run.
//
// A step's class is its value when every rep agrees (within the metric's practical threshold,
// catalog/metric_kind.h CountThreshold): "good" or "bad" when it equals an endpoint's, else the
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

#include "catalog/metric_kind.h"
#include "model/experiment.h"
#include "runner/bisect_candidates.h"
#include "runner/bisect_driver.h"
#include "runner/session.h"

namespace foliolab {

class CountBisectEvaluator : public BisectEvaluator {
 public:
  // At least two candidates; the metric is a count (a timing: the reason it is refused).
  // `where` is the selector the candidates were made with (for the series-without check).
  static Result<std::unique_ptr<CountBisectEvaluator>> make(BisectCandidates candidates,
                                                            std::string metric, RunSelector where,
                                                            SessionRun run_session);

  size_t candidates() const override { return c_.runs.size(); }
  std::string describe(size_t i) const override { return c_.names[i]; }
  Result<BisectStep> observe(size_t i) override;
  void restore(const BisectStep& step) override;
  Result<BisectConfirmation> confirm(size_t parent, size_t culprit, int runs) override;
  const BisectCandidates& candidate_list() const { return c_; }

 private:
  CountBisectEvaluator(BisectCandidates c, std::string metric, RunSelector where,
                       SessionRun run_session, CountThreshold threshold)
      : c_(std::move(c)),
        metric_(std::move(metric)),
        where_(std::move(where)),
        run_session_(std::move(run_session)),
        threshold_(threshold) {}
  Result<std::vector<std::vector<double>>> measure(const Experiment& exp,
                                                   const std::vector<Run>& runs,
                                                   std::string* session) {
    return measure_runs(run_session_, exp, runs, metric_, session);
  }
  std::optional<std::string> classify(size_t i, const std::vector<double>& values) const;
  bool same(double a, double b) const;
  // The series without the culprit, measured once: "" when removing it undoes at least half of
  // its own change `own` (after - before), else why not.
  Result<std::string> without_check(size_t culprit, double own, BisectConfirmation& c);

  BisectCandidates c_;
  std::string metric_;
  RunSelector where_;
  SessionRun run_session_;
  CountThreshold threshold_;          // values closer than this are the same (the catalog's)
  std::optional<double> good_, bad_;  // the endpoints' values once observed
};

}  // namespace foliolab
