// Descriptive statistics and two-sample comparison for repeated measurements.
//
// Honesty rules (DESIGN.md): no aggregate from fewer than 2 samples (fields are NaN), sample
// stddev computed in two passes, p-values from Welch's t and Mann-Whitney U, warnings for small n.
// Inputs are expected to be finite; a NaN input propagates into the results.
#pragma once

#include <cstddef>
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

inline constexpr size_t kMinSamples = 2;          // below: no aggregate
inline constexpr size_t kLowPowerSamples = 5;     // below: low-power warning

}  // namespace foliolab
