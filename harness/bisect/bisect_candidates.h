// What `foliolab bisect` steps through: an ordered list of candidates, the first good and the
// last bad, each one run of one experiment. The candidates are
// - knob sets of the experiment (`--variants a,b,…`): its own runs, no kernel built;
// - the prefixes of a patch series the experiment's kernel names (`--series S`): candidate i
//   applies the series' first i patches (0: none, N: all), one derived kernel each, built in the
//   shared tree incrementally;
// - the commits of a git range of the kernel's git source (`--range GOOD..BAD`): candidate 0 is
//   GOOD, then each commit along the first parent up to BAD, one derived kernel each.
// A derived experiment holds just those kernels (named "<kernel>+<i>", the first i patches, or
// "<kernel>.<commit>"), so every step is a normal results session of it.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/series.h"
#include "model/experiment.h"
#include "runner/session.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct BisectCandidates {
  std::string kind;                // "knob sets", "patches", "commits": what the title counts
  Experiment exp;                  // the runs' experiment
  std::vector<Run> runs;           // one per candidate, good first
  std::vector<std::string> names;  // "knob set 'v4' (4 of 8)", "patch 3 of 5: <subject>", …
  // For a series: the series without one patch (the rest applied), to check a culprit alone
  // carries the change. Empty for knob sets and ranges.
  std::vector<std::string> patch_names;
  KernelSpec series_kernel;  // the kernel naming the series (patches_pick unset)
  size_t first_patch = 0;    // a series: the patches candidate 0 applies (known good)
};

// `--variants`: knob sets of `exp`, each selected with `where` (whose knobs must be empty).
Result<BisectCandidates> variant_candidates(const Experiment& exp,
                                            const std::vector<std::string>& variants,
                                            const RunSelector& where);

// `--series S`: the kernel of `exp` whose `patches:` is S (or the one where.kernel names, which
// must name S), its series loaded from `series_dir` (<root>/patches/S) with `runner`, mboxes
// split under `scratch`. `good_patches` (--good-patches K): the first K patches are known good,
// so candidate 0 applies them and the search walks the rest (what a series grew by).
Result<BisectCandidates> series_candidates(const Experiment& exp, const std::string& series,
                                           const RunSelector& where, ProcessRunner& runner,
                                           const std::filesystem::path& series_dir,
                                           const std::filesystem::path& scratch,
                                           size_t good_patches = 0);

// The series without patch `skip` (0-based) as an experiment of one kernel, and its one run.
Result<std::pair<Experiment, Run>> series_without(const BisectCandidates& c, size_t skip,
                                                  const RunSelector& where);

// `--range GOOD..BAD`: the kernel of `exp` with a git source (or the one where.kernel names).
Result<BisectCandidates> range_candidates(const Experiment& exp, const std::string& range,
                                          const RunSelector& where, ProcessRunner& runner);

// Runs these runs of the experiment as one new results session.
using SessionRun =
    std::function<Result<SessionSummary>(const Experiment& exp, const std::vector<Run>& runs)>;

// The metric's values (one per rep) in each of `runs` of `exp`, measured in one session whose
// directory goes to `session`; a run that failed or lacks the metric has none.
Result<std::vector<std::vector<double>>> measure_runs(const SessionRun& run_session,
                                                      const Experiment& exp,
                                                      const std::vector<Run>& runs,
                                                      const std::string& metric,
                                                      std::string* session);

// `exp` with `reps` repetitions per boot (fixed, no adaptive rule) and its runs like `runs`
// (run ids cover the reps).
std::pair<Experiment, std::vector<Run>> with_reps(const Experiment& exp,
                                                  const std::vector<Run>& runs, int reps);

// "n=3: 4096 4096 4096".
std::string values_text(const std::vector<double>& values);

}  // namespace foliolab
