// The verdict rule (docs/comparisons.md): a sample's statistics and the change of one sample
// against another with its verdict, the one rule of compare, report, gate, history and bisect.
// Implemented in analysis/verdict.cc; analysis/comparison.h groups runs into its samples.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "catalog/metric_catalog.h"

namespace foliolab {

enum class Verdict { kImproved, kRegressed, kChanged, kNoChange, kInconclusive };
std::string_view verdict_name(Verdict v);  // "improved", "regressed", "changed", ...

inline constexpr double kAlpha = 0.05;          // the largest p of a directional verdict
inline constexpr size_t kMaxAdaptiveReps = 30;  // reps per side a note may suggest

struct CompareOptions {
  double min_effect_timing = 0.02;  // smallest relative change of a timing that matters
  // Counts use their catalog threshold (MetricInfo::threshold), or the experiment's
  // `thresholds:`.
  MetricDecls declared;           // custom workloads' metric declarations
  ThresholdRules thresholds;      // the experiment's `thresholds:` entries
  std::vector<std::string> keep;  // metrics always compared when present (gate rules)
};

struct SampleStats {
  size_t n = 0;
  double mean = kNoValue, sd = kNoValue, median = kNoValue, cv = kNoValue;
  double ci_low = kNoValue, ci_high = kNoValue;  // of the mean (Student t, 95 %)
  double min = kNoValue, max = kNoValue;
  std::vector<double> values;
};

// A variant against the group's first variant.
// Why a delta has no aggregate or no verdict. report/ words it (delta_note: "n=3/3: p 0.10
// cannot reach 0.05; n>=4 (repeat: {max: 4}) would resolve 2 % at CV 1.1 %") and lists it
// among the group's warnings.
enum class DeltaNote {
  kNone,
  kFewSamples,    // fewer than kMinSamples on a side: no aggregate
  kZeroBaseline,  // baseline mean zero and no directional count change: no ratio
  kUnderpowered,  // inconclusive: `reps_needed` would resolve `min_effect` at `cv`
  kGuestsBeside,  // a timing of runs with other guests beside them, not under icount
};

// What a directional verdict rests on: the rank test and the interval, or (counts) both
// sides constant within the threshold and apart by more than it, at any n: no p-value then.
enum class VerdictBasis { kRankTest, kExact };
std::string_view basis_name(VerdictBasis b);  // "rank test", "exact"

struct Delta {
  // Timings of positive samples: gm(b) / gm(a) - 1 (geometric means); else mean(b)/mean(a) - 1.
  double rel_change = kNoValue;
  // 95 % Welch t interval of the same; of a ratio (never below -100 %) for non-negative
  // samples; none when a side's mean is 0 or near it (report/ shows the difference then).
  double ci_low = kNoValue, ci_high = kNoValue;
  double diff = kNoValue, diff_low = kNoValue, diff_high = kNoValue;  // mean(b) - mean(a), Welch
  double mann_whitney_p = kNoValue, welch_p = kNoValue;
  Verdict verdict = Verdict::kInconclusive;
  VerdictBasis basis = VerdictBasis::kRankTest;
  double min_effect = 0;  // relative; counts: threshold / |mean(a)| (0 for a zero baseline)
  double threshold = 0;   // counts: the practical threshold in the metric's unit
  bool per_boot = false;  // counts: the samples are boots of fragmented guests (RunConditions)
  DeltaNote note = DeltaNote::kNone;
  size_t n_base = 0, n_cand = 0;  // sample sizes
  // kUnderpowered: reps per side that would resolve min_effect at cv (the exact test's
  // smallest p must reach kAlpha, too); > kMaxAdaptiveReps: repetition cannot resolve it.
  size_t reps_needed = 0;
  double min_p = kNoValue;  // kUnderpowered: the smallest p the exact test has at these n
  double cv = kNoValue;     // kUnderpowered: the larger CV of the two samples
};

// What the runs behind a delta were measured under.
struct RunConditions {
  bool guests_beside = false;  // a run on either side had other guests beside it (run -j)
  bool icount = false;         // every run on both sides measured instruction-time
  // A run on either side had its memory fragmented by a `prepare:` step. Each boot's layout
  // differs and the reps of one boot meet the same one, so a count's samples are the boots'
  // means (one a run) and no exact verdict is given: only the rank test's, from 4 boots a side.
  bool fragmented = false;
};

// Statistics of one sample set (n < 2: only n, values, min and max).
SampleStats sample_stats(std::vector<double> values);
// The change of b against a with its verdict: the one rule of compare, report, gate and
// history. Timings: directional when the exact two-sided Mann-Whitney p <= kAlpha, the Welch
// interval excludes 0, |change| > min effect and the estimate and the rank statistic agree in
// sign; "no change" when the interval lies within ± min effect or the change is resolved and
// smaller; else inconclusive (kUnderpowered), and always inconclusive (kGuestsBeside) when
// `cond` has guests beside without icount; a distribution's quantile (info.family 4) at
// kAlpha / 4 (docs/comparisons.md#distributions). Counts: a difference of means within the
// threshold is "no change"; both sides constant within it and apart by more is a change at
// any n (kExact); else the timing rule with the threshold as the minimum effect. With
// `cond.fragmented` (the samples are boots' means) there is no exact verdict.
Delta compare_samples(const MetricInfo& info, const SampleStats& a, const SampleStats& b,
                      const CompareOptions& options, const RunConditions& cond = {});

// The rule's "resolved": the rank test's p <= alpha, `ci` (of b against a) excludes 0, and its
// estimate and the rank statistic agree in sign. Also the sequential test of bisect
// (analysis/sequential_class.h), at its per-look alpha.
bool change_resolved(const Interval& ci, const RankTest& rt, double alpha);

}  // namespace foliolab
