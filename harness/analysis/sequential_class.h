// The sequential test of `foliolab bisect` for a timing (KVM, host backend or icount reps):
// is a candidate like the good end, like the bad end, or neither? Pinpoint-style, the
// candidate's reps are doubled while it is undecided (4 → 8 → 16 → 32 = --max-reps), and the
// answer at each of these K looks is:
//   like good  ⇔ (a) the candidate lies on good's side of the midpoint between the ends: the
//                    (1 − α/K) interval of mean(log c) − (mean(log g) + mean(log b)) / 2 is
//                    below 0 (bad above good; the ends' own noise is in it);
//                (b) it is distinguishable from bad: the verdict rule's "resolved"
//                    (change_resolved: exact Mann-Whitney p ≤ α/K, the (1 − α/K) Welch
//                    log-ratio interval excludes 0, the two agree in sign);
//                (c) it is not distinguishable from good (the same, not resolved);
//   like bad: the same with the ends swapped; distinguishable from both (a partial effect) or
//   still neither at the last look: undecided, which bisect skips; else more reps.
// The looks are a fixed schedule, so the error is bounded by Bonferroni over them: each look
// spends α/K, and by the union bound a step is misclassified with probability ≤ α whatever
// the dependence between looks. Alpha spending (O'Brien-Fleming) would be less conservative,
// but its bound rests on the joint normality of the looks' statistics, which a rank test at
// n = 4 does not have; with doubling K is small (4), so Bonferroni costs little. The bound is
// tight only for a candidate at the midpoint (the boundary of (a)), decided either way with
// probability ≤ α; one equal to an end is called the other far less often.
// (a)'s interval has Welch-Satterthwaite df, but at most n_c − 1: Satterthwaite alone was
// liberal at the first look (measured 1.3 % per side at n = 3 against 0.625 %). The first look
// is at 4 reps because one at 3 (2 df, t = 8.9) almost never decides.
//
// Measured by simulation (sequential_class_test.cc; 2000 steps each, log-normal noise, bad
// 10 % slower than good, fresh ends of 12 reps each step, α 0.05, the default looks):
//   candidate = good, CV 1 %: 0.0 % called bad, 99.4 % like good, 0.7 % undecided, 4.2 reps
//   on average; CV 5 %: 0.0 % called bad, 80.2 % like good, 19.8 % undecided (mostly at max
//   reps: 12 reps per end limit it), 20.3 reps. Candidate = bad: the mirror (0.0 % called
//   good; 99.6 % and 80.3 % like bad).
//   candidate halfway (the geometric midpoint): CV 1 %: 0.0 % decided, 100 % undecided
//   (apart from both ends), 4.1 reps; CV 5 %: 2.3 % decided (1.1 % good, 1.2 % bad), 29.5 reps.
//   ends 0.5 % apart at CV 5 %: 96.0 % "ends alike" at once (no candidate reps), 0.1 % decided.
//   whole bisections of 8 candidates, every culprit position, 490 each: CV 1 %: 99.8 % exact,
//   0 % wrong, 36 reps on average (predict_bisect_cost: 32 .. 120, bound 216); CV 5 %: 70.0 %
//   exact, 30.0 % a range around skips, 0 % wrong, 95 reps.
// (The test prints these figures and asserts each with a margin.)
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats.h"

namespace foliolab {

struct SequentialPlan {
  size_t first_reps = 4;     // the candidate's first look
  size_t max_reps = 32;      // its last look (--max-reps; at least first_reps)
  double alpha = 0.05;       // the per-step error bound, spent over the looks
  double min_effect = 0.02;  // ends closer than this (relative) give no verdict: alike
};

// The looks: first, 2·first, 4·first, … while below max_reps, then max_reps.
std::vector<size_t> look_schedule(const SequentialPlan& plan);
// What each look spends: alpha / the number of looks.
double look_alpha(const SequentialPlan& plan);
// The reps per end at which the rank test of a first look can reach look_alpha at all
// (6 for the defaults); fewer make the first looks idle.
size_t min_endpoint_reps(const SequentialPlan& plan);

enum class SequentialClass { kLikeGood, kLikeBad, kNeedMore, kUndecided };
std::string_view sequential_class_name(SequentialClass c);  // "like good", "need more", ...

enum class SequentialNote {
  kNone,
  kEndsAlike,      // undecided: the ends give no verdict between them (or fewer than 2 reps)
  kNotPositive,    // undecided: a value is zero or negative (timings are positive)
  kApartFromBoth,  // undecided: distinguishable from both ends (a partial effect, or beyond one)
  kMaxReps,        // undecided: max_reps reached with neither answer
};
std::string_view sequential_note_name(SequentialNote n);  // "ends alike", "max reps", ...

struct SequentialDecision {
  SequentialClass cls = SequentialClass::kNeedMore;
  SequentialNote note = SequentialNote::kNone;
  size_t more_reps = 0;  // kNeedMore: reps to add before the next look
  // At a look (NaN otherwise): where the candidate's geometric mean lies on the log scale,
  // 0 = good's, 1 = bad's; the rank test's p against each end; what the look spent.
  double position = kNoValue;
  double p_good = kNoValue, p_bad = kNoValue;
  double alpha = kNoValue;
};

// The candidate's reps so far against both ends' (measured first). A size that is not on the
// schedule is not a look (the answer is kNeedMore up to the next one), so the K looks the
// bound counts are the only ones; a size at or past max_reps is the last look.
SequentialDecision classify_sequential(std::span<const double> good, std::span<const double> bad,
                                       std::span<const double> candidate,
                                       const SequentialPlan& plan = {});

// The adapter for the bisect evaluator: the observation's class ("good" / "bad"), or nullopt
// for a skip; more_reps > 0 (with nullopt) asks for that many more reps first.
struct SequentialStep {
  std::optional<std::string> cls;
  size_t more_reps = 0;
  SequentialDecision decision;  // the numbers behind it, for the evidence line
};
SequentialStep sequential_step(const std::vector<double>& good, const std::vector<double>& bad,
                               const std::vector<double>& candidate,
                               const SequentialPlan& plan = {});

// The predicted cost of a whole timing bisection, for the line printed before it starts.
struct BisectCostInput {
  size_t candidates = 2;      // including both ends
  size_t endpoint_reps = 12;  // reps per end
  size_t confirm_runs = 3;    // --confirm N: fresh runs per side
  size_t confirm_reps = 12;   // reps per confirmation run
  size_t confirm_sides = 2;   // parent and culprit (3 for a series: also without the culprit)
};
struct BisectCost {
  // Steps after the ends for one culprit and no skip: the binary search's least and most.
  size_t steps_best = 0, steps_worst = 0;
  // Reps (and runs, one per look) in all, ends and confirmation included: every step decided
  // at its first look; every step decided only at its last; every candidate between the ends
  // measured to max_reps (all skipped: the bound).
  size_t reps_best = 0, reps_worst = 0, reps_bound = 0;
  size_t runs_best = 0, runs_worst = 0, runs_bound = 0;
};
BisectCost predict_bisect_cost(const SequentialPlan& plan, const BisectCostInput& in);

}  // namespace foliolab
