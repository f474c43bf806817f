// compare_samples (analysis/verdict.h): the verdict rule of compare, report, gate and
// history. Its false-alarm rate and power are simulated in verdict_test.cc and quoted in the
// docs/comparisons.md.
#include <algorithm>
#include <cmath>
#include <utility>

#include "analysis/verdict.h"

namespace foliolab {
namespace {

constexpr std::string_view kVerdictNames[] = {"improved", "regressed", "changed", "no change",
                                              "inconclusive"};

Verdict directional(Better better, double change) {
  switch (better) {
    case Better::kHigher:
      return change > 0 ? Verdict::kImproved : Verdict::kRegressed;
    case Better::kLower:
      return change < 0 ? Verdict::kImproved : Verdict::kRegressed;
    case Better::kNone:
      break;
  }
  return Verdict::kChanged;
}

double finite_or_zero(double x) { return std::isfinite(x) ? x : 0; }

// The n per side at which the exact rank test can reach `alpha` at all (4 for equal sizes at
// kAlpha; 5 at kAlpha / 4, a distribution's quantiles).
size_t n_for_min_p(double alpha) {
  size_t n = kMinSamples;
  while (min_rank_p(n, n) > alpha) ++n;
  return n;
}

// The largest p of a directional verdict on this metric: kAlpha shared by its family's tests.
double alpha_of(const MetricInfo& info) { return kAlpha / std::max(1, info.family); }

// An inconclusive delta: what repetition would need to resolve `effect` at the samples' CV.
void underpowered(Delta* d, const SampleStats& a, const SampleStats& b, double effect,
                  double alpha) {
  d->verdict = Verdict::kInconclusive;
  d->note = DeltaNote::kUnderpowered;
  d->cv = std::max(finite_or_zero(a.cv), finite_or_zero(b.cv));
  d->min_p = min_rank_p(a.n, b.n);
  d->reps_needed = std::max(n_for_min_p(alpha), reps_needed(d->cv, effect, alpha));
  if (effect <= 0) d->reps_needed = kMaxAdaptiveReps + 1;
}

void judge_timing(const MetricInfo& info, const SampleStats& a, const SampleStats& b,
                  const RankTest& rt, Delta* d) {
  const Interval ci = relative_change_interval(a.values, b.values);
  d->rel_change = ci.estimate;
  d->ci_low = ci.low;
  d->ci_high = ci.high;
  if (!std::isfinite(d->rel_change)) {
    d->note = DeltaNote::kZeroBaseline;
    return;
  }
  const double e = d->min_effect;
  const bool significant = change_resolved(ci, rt, alpha_of(info));
  if (significant && std::fabs(d->rel_change) > e) {
    d->verdict = directional(info.better, d->rel_change);
  } else if (significant || (d->ci_low >= -e && d->ci_high <= e)) {
    d->verdict = Verdict::kNoChange;  // resolved and small, or the whole interval within ±e
  } else {
    underpowered(d, a, b, e, alpha_of(info));
  }
}

// A count's interval of b.mean / a.mean - 1: of the ratio (never below -100 %) when no value is
// negative, none when a side's mean is near zero (the table shows the difference then); the
// difference over a.mean for counts that go negative.
void count_change_interval(const SampleStats& a, const SampleStats& b, const Interval& diff,
                           Delta* d) {
  if (a.min >= 0 && b.min >= 0) {
    const Interval ratio = ratio_of_means_interval(a.values, b.values);
    d->ci_low = ratio.low;
    d->ci_high = ratio.high;
    return;
  }
  const double lo = diff.low / a.mean, hi = diff.high / a.mean;
  d->ci_low = std::min(lo, hi);
  d->ci_high = std::max(lo, hi);
}

bool constant_within(const SampleStats& s, double threshold) { return s.max - s.min <= threshold; }

void judge_count(const MetricInfo& info, const SampleStats& a, const SampleStats& b,
                 const RankTest& rt, bool per_boot, Delta* d) {
  // Of the larger mean: the same threshold whichever side is the baseline, and one that a
  // count appearing from zero (0 against 1024 +- 3 64 KiB folios) still has.
  const double t = info.threshold.of(std::max(std::fabs(a.mean), std::fabs(b.mean)));
  d->per_boot = per_boot;
  const double diff = b.mean - a.mean;
  d->threshold = t;
  const Interval ci = difference_interval(a.values, b.values);
  if (std::fabs(a.mean) <= t && std::fabs(b.mean) <= t && std::fabs(diff) <= t) {
    // Zero on both sides within the threshold (0 -> 0, or a gauge's stray folio in one rep): no
    // change, not a ratio to a baseline that is zero (-100 % with a CI of hundreds of %).
    d->rel_change = d->ci_low = d->ci_high = 0;
  } else if (a.mean != 0) {
    d->rel_change = b.mean / a.mean - 1;
    count_change_interval(a, b, ci, d);
    d->min_effect = t / std::fabs(a.mean);
  }
  const bool apart = b.min > a.max || b.max < a.min;
  if (std::fabs(diff) <= t) {
    d->verdict = Verdict::kNoChange;
  } else if (!per_boot && apart && constant_within(a, t) && constant_within(b, t)) {
    // Not for boots of a fragmented guest: a few boots that happen to agree say nothing of
    // the next one's layout (the rank test below needs 4 a side).
    d->verdict = directional(info.better, diff);
    d->basis = VerdictBasis::kExact;
  } else if (change_resolved(ci, rt, kAlpha)) {
    d->verdict = directional(info.better, diff);
  } else if (a.mean == 0) {
    d->note = DeltaNote::kZeroBaseline;
  } else {
    underpowered(d, a, b, d->min_effect, kAlpha);
  }
}

}  // namespace

bool change_resolved(const Interval& ci, const RankTest& rt, double alpha) {
  const bool excludes_zero = ci.low > 0 || ci.high < 0;
  const bool same_sign = (ci.estimate > 0) == (rt.shift > 0) && rt.shift != 0;
  return rt.p <= alpha && excludes_zero && same_sign;
}

std::string_view verdict_name(Verdict v) { return kVerdictNames[static_cast<size_t>(v)]; }

SampleStats sample_stats(std::vector<double> values) {
  SampleStats s;
  const Summary sum = summarize(values);
  s.n = values.size();
  s.mean = sum.mean;
  s.sd = sum.stddev;
  s.median = sum.median;
  s.cv = sum.cv;
  s.ci_low = sum.ci95_low;
  s.ci_high = sum.ci95_high;
  if (!values.empty()) {
    auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    s.min = *lo;
    s.max = *hi;
  }
  s.values = std::move(values);
  return s;
}

std::string_view basis_name(VerdictBasis b) {
  return b == VerdictBasis::kExact ? "exact" : "rank test";
}

Delta compare_samples(const MetricInfo& info, const SampleStats& a, const SampleStats& b,
                      const CompareOptions& options, const RunConditions& cond) {
  Delta d;
  const bool timing = info.kind == MetricKind::kTiming;
  d.min_effect = timing ? options.min_effect_timing : 0;
  d.n_base = a.n;
  d.n_cand = b.n;
  d.per_boot = cond.fragmented && !timing;
  if (a.n < kMinSamples || b.n < kMinSamples) {
    d.note = DeltaNote::kFewSamples;
    return d;
  }
  const Interval diff = difference_interval(a.values, b.values);
  d.diff = diff.estimate;
  d.diff_low = diff.low;
  d.diff_high = diff.high;
  const RankTest rt = rank_test(a.values, b.values);
  d.mann_whitney_p = rt.p;
  d.welch_p = welch_t_test(a.values, b.values);
  if (!timing) {
    judge_count(info, a, b, rt, cond.fragmented, &d);
    return d;
  }
  judge_timing(info, a, b, rt, &d);
  if (cond.guests_beside && !cond.icount) {
    d.verdict = Verdict::kInconclusive;
    d.note = DeltaNote::kGuestsBeside;
  }
  return d;
}

}  // namespace foliolab
