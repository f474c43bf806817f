// `foliolab bisect`'s loop: the search (bisect/bisect_search.h) asks for a candidate, the
// evaluator runs it (a normal results session) and classifies it, the log keeps the
// observation, and the search is told. A killed bisection resumes by replaying its log: the
// observations already made are fed back and nothing is run twice. Then each culprit is
// confirmed against its parent in fresh boots.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect_outcome.h"
#include "bisect/bisect_search.h"
#include "results/bisect_log.h"
#include "util/result.h"

namespace foliolab {

// The seam: what a candidate is and how it is measured. The real one runs sessions; the tests
// use a fake with a truth table.
class BisectEvaluator {
 public:
  virtual ~BisectEvaluator() = default;
  virtual size_t candidates() const = 0;
  virtual std::string describe(size_t candidate) const = 0;  // "patch 0004 of 6", "knob set 64K"
  // Measures one candidate. An error is a failure of the machinery (not a skip) and ends the
  // bisection; what was logged stays, and `bisect resume` goes on from there.
  virtual Result<BisectStep> observe(size_t candidate) = 0;
  // A step taken from the log of an earlier call (`bisect resume`): what observe() would have
  // learnt from it (the endpoints' values).
  virtual void restore(const BisectStep&) {}
  // The culprit against its parent in `runs` fresh boots each, interleaved: confirmed when the
  // change agrees in direction with the endpoints' and is at least half of it.
  virtual Result<BisectConfirmation> confirm(size_t parent, size_t culprit, int runs) = 0;
};

struct BisectHooks {
  // "[step 3/4] patch 0004 of 6: 1024 (bad)"-style lines; given the step, its number and the
  // bound of the steps at that point.
  std::function<void(const BisectStep&, size_t step, size_t bound)> on_step;
  std::function<void(const BisectConfirmation&)> on_confirm;
};

Result<BisectOutcome> run_bisect(BisectEvaluator& eval, BisectLog& log, int confirm_runs,
                                 const BisectHooks& hooks = {});

}  // namespace foliolab
