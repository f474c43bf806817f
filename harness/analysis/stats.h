// Descriptive statistics and two-sample comparison for repeated measurements.
//
// Honesty rules (DESIGN.md): no aggregate from fewer than 2 samples (fields are NaN), sample
// stddev computed in two passes, p-values from Welch's t and Mann-Whitney U, warnings for small n.
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

// Two-sided Mann-Whitney U p-value: exact distribution when there are no ties and
// n_a * n_b <= kMannWhitneyExactMax, else normal approximation with tie and continuity correction.
inline constexpr size_t kMannWhitneyExactMax = 2500;
double mann_whitney_u_test(std::span<const double> a, std::span<const double> b);

// Mean (with a correction pass) and median; NaN for an empty span.
double mean(std::span<const double> values);
double median(std::span<const double> values);

// Percentile bootstrap confidence interval of the ratio of means mean(b) / mean(a): `resamples`
// resamplings of both samples with replacement, drawn from a SplitMix64 stream started at
// `seed`, so the same input always gives the same interval. NaN when either side has fewer
// than kMinSamples values or every resampled baseline mean is zero.
struct Interval {
  double low = kNoValue, high = kNoValue;
};
inline constexpr uint64_t kBootstrapSeed = 0x666f6c696f6c6162;  // "foliolab"
inline constexpr int kBootstrapResamples = 4000;
Interval bootstrap_ratio_ci(std::span<const double> a, std::span<const double> b,
                            double level = 0.95, int resamples = kBootstrapResamples,
                            uint64_t seed = kBootstrapSeed);

// Repetitions per side a two-sided test at alpha needs to detect a relative change of
// `min_effect` with the given power, for samples with coefficient of variation `cv` (normal
// approximation: n = 2 (z_{1-alpha/2} + z_power)^2 cv^2 / effect^2, at least kMinSamples).
size_t reps_needed(double cv, double min_effect, double alpha = 0.05, double power = 0.8);

inline constexpr size_t kMinSamples = 2;       // below: no aggregate
inline constexpr size_t kLowPowerSamples = 5;  // below: low-power warning

}  // namespace foliolab
