// Descriptive statistics and two-sample comparison for repeated measurements.
//
// Honesty rules (DESIGN.md): no aggregate from fewer than 2 samples (fields are NaN), sample
// stddev computed in two passes, p-values from Welch's t and an exact Mann-Whitney U, Welch
// intervals of the change, warnings for small n.
// Inputs are expected to be finite; a NaN input propagates into the results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace foliolab {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct Summary {
  size_t n = 0;
  double mean = kNoValue, median = kNoValue, stddev = kNoValue /*sample, two-pass*/,
         cv = kNoValue /*stddev/|mean|*/, ci95_low = kNoValue,
         ci95_high = kNoValue /*Student t, mean ± t(0.975, n-1)·s/√n*/, min = kNoValue,
         max = kNoValue;
};

// n < 2: every field but n is NaN.
Summary summarize(std::span<const double> values);

struct Comparison {
  double rel_change = kNoValue;      // (mean_b - mean_a) / mean_a
  double ratio = kNoValue;           // mean_b / mean_a
  double welch_p = kNoValue;         // two-sided
  double mann_whitney_p = kNoValue;  // two-sided
  std::string warning;               // "" when none; several are joined with "; "
};

// a is the baseline. Fields are NaN when undefined (n < 2 on either side, zero baseline mean,
// zero variance on both sides for Welch).
Comparison compare(std::span<const double> a, std::span<const double> b);

// Two-sided Welch t-test p-value (NaN if undefined).
double welch_t_test(std::span<const double> a, std::span<const double> b);

// Two-sided Mann-Whitney U test, exact under exchangeability for any distribution: the
// permutation distribution of U (cached per (m, n)) when there are no ties and
// m * n <= kMannWhitneyExactMax; with ties, the permutation distribution of the sum of doubled
// mid-ranks conditional on the ties when m + n <= kMannWhitneyTiesExactMax; else the normal
// approximation with tie and continuity correction.
inline constexpr size_t kMannWhitneyExactMax = 2500;
inline constexpr size_t kMannWhitneyTiesExactMax = 60;
struct RankTest {
  double p = kNoValue;      // two-sided
  double shift = kNoValue;  // P(b > a) + P(b = a) / 2 - 1/2 from U: > 0 when b tends larger
};
RankTest rank_test(std::span<const double> a, std::span<const double> b);
double mann_whitney_u_test(std::span<const double> a, std::span<const double> b);
// The smallest two-sided p the exact test can give for m and n untied values: 2 / C(m+n, m).
double min_rank_p(size_t m, size_t n);

// Mean (with a correction pass) and median; NaN for an empty span.
double mean(std::span<const double> values);
double median(std::span<const double> values);

// A 95 % Welch t interval (Welch-Satterthwaite df) of the change of b against a.
//   relative: every value positive: of the log ratio of geometric means, change =
//     gm(b) / gm(a) - 1 (log_scale); every value >= 0 with a zero among them: the
//     ratio_of_means_interval; a negative value: of the difference of means divided by mean(a),
//     change = mean(b) / mean(a) - 1 (NaN when mean(a) is zero).
//   absolute: of mean(b) - mean(a).
// Zero variance on both sides gives the point as its interval. NaN below kMinSamples.
struct Interval {
  double estimate = kNoValue, low = kNoValue, high = kNoValue;
  bool log_scale = false;
};
Interval relative_change_interval(std::span<const double> a, std::span<const double> b,
                                  double level = 0.95);
// Of mean(b) / mean(a) - 1 for samples of a positive quantity: a Welch t interval of
// log mean(b) - log mean(a), its variance by the delta method (s_a^2 / (n_a mean(a)^2) +
// the same of b), so the bounds exp(lo) - 1 .. exp(hi) - 1 never reach -100 % (log_scale). NaN
// when a side's mean is at most kNearZeroMean of the other's: no ratio, show the difference.
Interval ratio_of_means_interval(std::span<const double> a, std::span<const double> b,
                                 double level = 0.95);
inline constexpr double kNearZeroMean = 1e-6;
Interval difference_interval(std::span<const double> a, std::span<const double> b,
                             double level = 0.95);

// Repetitions per side a two-sided test at alpha needs to detect a relative change of
// `min_effect` with the given power, for samples with coefficient of variation `cv` (normal
// approximation: n = 2 (z_{1-alpha/2} + z_power)^2 cv^2 / effect^2, at least kMinSamples).
size_t reps_needed(double cv, double min_effect, double alpha = 0.05, double power = 0.8);

inline constexpr size_t kMinSamples = 2;       // below: no aggregate
inline constexpr size_t kLowPowerSamples = 5;  // below: low-power warning

}  // namespace foliolab
