// `foliolab bisect EXP --variants a,b,c,…`: the candidates are knob sets of one experiment, in
// the order given (the first good, the last bad), each measured as a normal results session of
// the one run `--where` selects. No kernel is built between steps, which makes it the cheap
// end-to-end test of the bisection and a tool of its own (at which max_ptes_none does the
// shrinker stop splitting?).
//
// Counts only, for now: a step's class is its value when every rep agrees (within the metric's
// practical threshold, catalog/metric_kind.h CountThreshold): "good" or "bad" when it equals an
// endpoint's, else the value itself (a third value: the search explores both halves). Reps that
// disagree make the step a skip. Timings are refused: under plain TCG they are not reproducible,
// and the sequential test that KVM, host and icount timings need is not written yet.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/metric_kind.h"
#include "model/experiment.h"
#include "runner/bisect_driver.h"
#include "runner/session.h"

namespace foliolab {

struct VariantBisectSpec {
  std::vector<std::string> variants;  // knob set names, good first
  std::string metric;
  RunSelector where;  // kernel, arch, workload; its knobs field must be empty
};

// Runs these runs of the experiment as one new results session.
using SessionRun = std::function<Result<SessionSummary>(const std::vector<Run>& runs)>;

class VariantBisectEvaluator : public BisectEvaluator {
 public:
  // Checks the spec against the experiment: at least two variants, each a knob set of it (with
  // did-you-mean), `where` selecting exactly one run per variant, a count metric.
  static Result<std::unique_ptr<VariantBisectEvaluator>> make(const Experiment& exp,
                                                              VariantBisectSpec spec,
                                                              SessionRun run_session);

  size_t candidates() const override { return runs_.size(); }
  std::string describe(size_t i) const override;
  Result<BisectStep> observe(size_t i) override;
  void restore(const BisectStep& step) override;
  Result<BisectConfirmation> confirm(size_t parent, size_t culprit, int runs) override;

 private:
  VariantBisectEvaluator(const Experiment& exp, VariantBisectSpec spec, std::vector<Run> runs,
                         SessionRun run_session, CountThreshold threshold)
      : exp_(exp),
        spec_(std::move(spec)),
        runs_(std::move(runs)),
        run_session_(std::move(run_session)),
        threshold_(threshold) {}
  // The metric's values in each of the runs, measured in one session.
  Result<std::vector<std::vector<double>>> measure(const std::vector<size_t>& candidates,
                                                   std::string* session);
  std::optional<std::string> classify(size_t i, const std::vector<double>& values) const;
  bool same(double a, double b) const;

  const Experiment& exp_;
  VariantBisectSpec spec_;
  std::vector<Run> runs_;  // one per variant
  SessionRun run_session_;
  CountThreshold threshold_;          // values closer than this are the same (the catalog's)
  std::optional<double> good_, bad_;  // the endpoints' values once observed
};

}  // namespace foliolab
