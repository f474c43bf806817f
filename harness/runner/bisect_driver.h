// `foliolab bisect`'s loop: the search (analysis/bisect_search.h) asks for a candidate, the
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

#include "analysis/bisect_search.h"
#include "util/result.h"

namespace foliolab {

inline constexpr int kBisectLogSchema = 1;

// One observation of the bisection's evidence table.
struct BisectStep {
  size_t candidate = 0;
  std::optional<std::string> cls;  // nullopt: skipped
  std::string session;             // the results session that measured it ("" if none)
  std::string evidence;            // "n=3: 1024 1024 1024", or why it was skipped
  std::vector<double> values;      // the metric's values (one per rep)
};

struct BisectConfirmation {
  size_t parent = 0, culprit = 0;
  bool confirmed = false;
  std::string evidence;  // what the fresh runs showed
  std::vector<std::string> sessions;
};

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

// The bisection's log (bisect.json, schema kBisectLogSchema), written atomically again as each
// observation comes in, so a kill leaves the last complete state.
class BisectLog {
 public:
  static Result<BisectLog> open(std::filesystem::path file);
  // What the bisection is (the command's own keys: experiment, variants, metric, where), so that
  // `bisect resume DIR` needs nothing else; written once, when it starts.
  const std::map<std::string, std::string>& meta() const { return meta_; }
  Status set_meta(std::map<std::string, std::string> meta);
  const std::vector<BisectStep>& steps() const { return steps_; }
  const std::vector<BisectConfirmation>& confirmations() const { return confirmations_; }
  Status append(const BisectStep& step);
  Status append(const BisectConfirmation& c);

 private:
  Status save() const;
  std::filesystem::path file_;
  std::map<std::string, std::string> meta_;
  std::vector<BisectStep> steps_;
  std::vector<BisectConfirmation> confirmations_;
};

struct BisectOutcome {
  BisectState state = BisectState::kRunning;
  std::vector<BisectCulprit> culprits;
  std::vector<BisectConfirmation> confirmations;  // one per exact culprit, in order
  std::vector<BisectStep> steps;                  // as observed (replayed ones first)
  size_t replayed = 0;                            // steps taken from the log
  // A confirmed culprit was found (exit 0); else none, unconfirmed or did not reproduce.
  bool confirmed() const;
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
