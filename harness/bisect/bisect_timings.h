// `foliolab bisect` following a timing: only where timings are reproducible (KVM, the host
// backend, or QEMU's icount instruction-time); plain TCG wall-clock timings are refused with the
// reason. The ends are measured first with `endpoint_reps` reps each (no verdict between them:
// "does not reproduce"); each step's candidate is then measured in looks of doubling reps
// (analysis/sequential_class.h: 4, 8, 16, 32 = --max-reps, each look a fresh boot adding reps)
// until it is like good, like bad, or undecided, which is a skip the search goes around. The
// culprit is confirmed against its parent in `--confirm N` fresh boots each, interleaved: the
// verdict rule (analysis/comparison.h compare_samples) must give a change in the ends' direction
// of at least half theirs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/sequential_class.h"
#include "bisect/bisect_candidates.h"
#include "bisect/candidate_evaluator.h"
#include "model/metric_kind.h"

namespace foliolab {

struct TimingBisectOptions {
  SequentialPlan plan;        // looks and --max-reps
  size_t endpoint_reps = 12;  // reps per end (at least min_endpoint_reps(plan))
  size_t confirm_reps = 12;   // reps per confirmation boot
};

// Why a timing cannot be bisected on this experiment's machine ("" when it can).
std::string timing_bisect_refusal(const Experiment& exp, const std::string& metric);

class TimingBisectEvaluator : public CandidateEvaluator {
 public:
  static Result<std::unique_ptr<TimingBisectEvaluator>> make(BisectCandidates candidates,
                                                             std::string metric,
                                                             SessionRun run_session,
                                                             TimingBisectOptions options);

  Result<BisectStep> observe(size_t i) override;
  Result<BisectConfirmation> confirm(size_t parent, size_t culprit, int runs) override;
  // The line printed before the bisection starts: steps and reps it may take.
  std::string predicted_cost(int confirm_runs) const;

 private:
  TimingBisectEvaluator(BisectCandidates c, std::string metric, SessionRun run_session,
                        TimingBisectOptions options, MetricInfo info)
      : CandidateEvaluator(std::move(c), std::move(metric), std::move(run_session)),
        opt_(options),
        info_(info) {}
  // `reps` more reps of candidate i in one fresh boot.
  Result<std::vector<double>> more(size_t i, size_t reps, std::vector<std::string>& sessions);
  BisectStep endpoint(size_t i, std::vector<double> values, std::vector<std::string> sessions);

  TimingBisectOptions opt_;
  MetricInfo info_;
};

}  // namespace foliolab
