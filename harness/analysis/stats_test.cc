#include "analysis/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

namespace foliolab {
namespace {

// Reference values: computed with mpmath (exact rational means/variances, regularized incomplete
// beta for the t distribution) and brute-force enumeration for exact Mann-Whitney.

TEST(Stats, SummarizeTextbook) {
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  Summary s = summarize(v);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_NEAR(s.stddev, 2.138089935299395, 1e-12);
  EXPECT_NEAR(s.cv, 0.427617987059879, 1e-12);
  EXPECT_NEAR(s.ci95_low, 3.212512081763789, 1e-9);
  EXPECT_NEAR(s.ci95_high, 6.787487918236211, 1e-9);
  EXPECT_EQ(s.min, 2);
  EXPECT_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{3, 1, 2}).median, 2);
}

TEST(Stats, NoAggregateFromOneSample) {
  Summary one = summarize(std::vector<double>{42});
  EXPECT_EQ(one.n, 1u);
  EXPECT_TRUE(std::isnan(one.mean));
  EXPECT_TRUE(std::isnan(one.stddev));
  EXPECT_TRUE(std::isnan(one.min));
  Summary none = summarize({});
  EXPECT_EQ(none.n, 0u);
  EXPECT_TRUE(std::isnan(none.median));
}

TEST(Stats, PrecisionWithLargeValues) {
  // 1e12 + small noise: the one-pass sum-of-squares formula loses every digit here.
  const std::vector<double> v = {1000000000000.5, 1000000000001.25, 999999999999.25,
                                 1000000000002.0, 999999999998.5,   1000000000000.25};
  Summary s = summarize(v);
  EXPECT_NEAR(s.mean, 1000000000000.2916, 1e-3);
  EXPECT_NEAR(s.stddev, 1.2788341044352338, 1e-9);
  EXPECT_NEAR(s.ci95_low, 999999999998.9496, 1e-3);
  EXPECT_NEAR(s.ci95_high, 1000000000001.6337, 1e-3);

  // Constant large values: variance exactly zero, never negative or NaN.
  Summary c = summarize(std::vector<double>{1e15 + 1, 1e15 + 1, 1e15 + 1});
  EXPECT_EQ(c.stddev, 0.0);
  EXPECT_EQ(c.cv, 0.0);
}

TEST(Stats, WelchWikipediaExample) {
  const std::vector<double> a = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
                                 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
  const std::vector<double> b = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
                                 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
  EXPECT_NEAR(welch_t_test(a, b), 0.0213780014628671, 1e-10);
  EXPECT_NEAR(welch_t_test(b, a), 0.0213780014628671, 1e-10);  // two-sided
  // Unequal sizes and variances.
  EXPECT_NEAR(
      welch_t_test(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{2, 4, 6, 8, 10, 12}),
      0.0492843382067305, 1e-10);
  // Ties at N = 30: the exact permutation p conditional on the ties (the normal approximation
  // gave 0.0152); N = 90 > kMannWhitneyTiesExactMax: the normal approximation with tie and
  // continuity correction (both values from an independent Python computation).
  EXPECT_NEAR(mann_whitney_u_test(a, b), 0.013172760884779488, 1e-12);
  std::vector<double> a3, b3;
  for (int i = 0; i < 3; ++i) {
    a3.insert(a3.end(), a.begin(), a.end());
    b3.insert(b3.end(), b.begin(), b.end());
  }
  EXPECT_NEAR(mann_whitney_u_test(a3, b3), 1.8274004406078656e-05, 1e-12);
}

TEST(Stats, MannWhitneyExact) {
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}), 0.1,
              1e-12);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1.1, 2.3, 3.5, 4.0},
                                  std::vector<double>{2.0, 5.1, 6.2, 7.3, 8.4}),
              1.0 / 9.0, 1e-12);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{3.2, 1.5, 4.8, 2.2, 9.9, 5.5, 6.1},
                                  std::vector<double>{7.7, 8.8, 10.1, 6.6, 12.0, 11.1}),
              0.008158508158508158, 1e-12);
  // U at the centre of its distribution: p capped at 1; one step off: 2 * 2/6.
  EXPECT_DOUBLE_EQ(mann_whitney_u_test(std::vector<double>{1, 4}, std::vector<double>{2, 3}), 1.0);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 3}, std::vector<double>{2, 4}), 2.0 / 3.0,
              1e-12);
}

// Exact conditional on the ties: 18 of the C(15, 7) = 6435 ways of choosing the a's lie as
// far from the centre (enumerated in Python); the normal approximation said 0.00479.
TEST(Stats, MannWhitneyTies) {
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 2, 2, 3, 3, 3, 4},
                                  std::vector<double>{3, 4, 4, 5, 5, 6, 7, 7}),
              18.0 / 6435, 1e-12);
  // Counts that jitter by one: 2 vs 2 with a tie (doubled ranks 2, 5, 5, 8; a's sum 7, 3 from
  // the centre 10, as are 4 of the 6 choices); 3 vs 3 apart with ties inside each side.
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1024, 1025}, std::vector<double>{1025, 1026}),
              4.0 / 6, 1e-12);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 1, 2}, std::vector<double>{3, 4, 4}), 0.1,
              1e-12);
  const RankTest rt = rank_test(std::vector<double>{1, 1, 2}, std::vector<double>{3, 4, 4});
  EXPECT_DOUBLE_EQ(rt.shift, 0.5);  // every b above every a
  EXPECT_DOUBLE_EQ(mann_whitney_u_test(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5}),
                   1.0);
}

TEST(Stats, CompareRatiosAndWarnings) {
  const std::vector<double> a = {10, 11, 9, 10, 10};
  const std::vector<double> b = {20, 22, 18, 20, 20};
  Comparison c = compare(a, b);
  EXPECT_DOUBLE_EQ(c.ratio, 2.0);
  EXPECT_DOUBLE_EQ(c.rel_change, 1.0);
  EXPECT_LT(c.welch_p, 0.001);
  EXPECT_LT(c.mann_whitney_p, 0.05);
  EXPECT_EQ(c.warning, "");

  Comparison small = compare(std::vector<double>{1, 2, 3}, std::vector<double>{2, 3, 4});
  EXPECT_NE(small.warning.find("low statistical power"), std::string::npos) << small.warning;
  EXPECT_FALSE(std::isnan(small.welch_p));

  Comparison one = compare(std::vector<double>{1}, b);
  EXPECT_TRUE(std::isnan(one.ratio));
  EXPECT_TRUE(std::isnan(one.welch_p));
  EXPECT_TRUE(std::isnan(one.mann_whitney_p));
  EXPECT_NE(one.warning.find("no aggregate"), std::string::npos);

  // Deterministic counts: identical within each variant.
  Comparison flat = compare(std::vector<double>{7, 7, 7, 7, 7}, std::vector<double>{9, 9, 9, 9, 9});
  EXPECT_TRUE(std::isnan(flat.welch_p));
  EXPECT_NE(flat.warning.find("zero variance in both"), std::string::npos);
  EXPECT_NEAR(flat.ratio, 9.0 / 7.0, 1e-15);

  Comparison zero = compare(std::vector<double>{0, 0}, std::vector<double>{1, 2});
  EXPECT_TRUE(std::isnan(zero.ratio));
  EXPECT_NE(zero.warning.find("baseline mean is zero"), std::string::npos);
}

// R: t.test(extra ~ group, data = sleep) -> Welch t = -1.8608, df = 17.776, p-value = 0.07939.
TEST(Stats, WelchRSleepExample) {
  const std::vector<double> g1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  const std::vector<double> g2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
  EXPECT_NEAR(welch_t_test(g1, g2), 0.07939, 5e-5);
}

// SciPy's mannwhitneyu docs: males [19, 22, 16, 29, 24] vs females [20, 11, 17, 12]:
// U1 = 17, exact two-sided p = 0.1111. R's wilcox.test(x, y) example (depression scores):
// W = 35, one-sided p = 0.1272, so two-sided exact p = 0.2544.
TEST(Stats, MannWhitneyPublishedExamples) {
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{19, 22, 16, 29, 24},
                                  std::vector<double>{20, 11, 17, 12}),
              0.1111, 5e-5);
  EXPECT_NEAR(mann_whitney_u_test(
                  std::vector<double>{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
                  std::vector<double>{1.15, 0.88, 0.90, 0.74, 1.21}),
              0.2544, 5e-5);
}

TEST(Stats, MeanAndMedian) {
  EXPECT_DOUBLE_EQ(mean(std::vector<double>{1, 2, 3, 10}), 4);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{1, 2, 3, 10}), 2.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{5, 1, 3}), 3);
  EXPECT_TRUE(std::isnan(mean(std::vector<double>{})));
}

TEST(Stats, MinimumExactP) {
  EXPECT_NEAR(min_rank_p(2, 2), 1.0 / 3, 1e-12);
  EXPECT_NEAR(min_rank_p(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(min_rank_p(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(min_rank_p(5, 5), 2.0 / 252, 1e-12);
}

TEST(Stats, WelchIntervalsOfTheChange) {
  // Deterministic counts: the interval is the point.
  const Interval flat = relative_change_interval(std::vector<double>{1024, 1024, 1024},
                                                 std::vector<double>{16384, 16384, 16384});
  EXPECT_TRUE(flat.log_scale);
  EXPECT_NEAR(flat.estimate, 15, 1e-12);
  EXPECT_EQ(flat.low, flat.estimate);
  EXPECT_EQ(flat.high, flat.estimate);
  // Log scale: ratio of geometric means, Welch df. a = {1, 2}, b = {2, 4}: log ratio ln 2,
  // each log variance (ln 2)^2 / 2, se = ln 2 / sqrt 2, df = 2, t(0.975, 2) = 4.302653.
  const Interval r = relative_change_interval(std::vector<double>{1, 2}, std::vector<double>{2, 4});
  EXPECT_NEAR(r.estimate, 1, 1e-12);
  EXPECT_NEAR(r.low, std::exp(std::log(2) * (1 - 4.302652729749464 / std::sqrt(2))) - 1, 1e-9);
  EXPECT_NEAR(r.high, std::exp(std::log(2) * (1 + 4.302652729749464 / std::sqrt(2))) - 1, 1e-9);
  // A zero in a sample: of the ratio of means in log space (the delta method). a = {0, 2}:
  // mean 1, s^2/n = 1; b = {1, 3}: mean 2, s^2/n = 1; var = 1/1 + 1/4, symmetric about ln 2.
  const Interval z = relative_change_interval(std::vector<double>{0, 2}, std::vector<double>{1, 3});
  EXPECT_TRUE(z.log_scale);
  EXPECT_NEAR(z.estimate, 1, 1e-12);
  EXPECT_GT(z.low, -1);
  EXPECT_NEAR(std::log1p(z.low) + std::log1p(z.high), 2 * std::log(2), 1e-9);
  const double df = 1.25 * 1.25 / (1 + 0.0625);
  const double t = boost::math::quantile(boost::math::students_t(df), 0.975);
  EXPECT_NEAR(std::log1p(z.high) - std::log(2), t * std::sqrt(1.25), 1e-9);
  const Interval d = difference_interval(std::vector<double>{1, 3}, std::vector<double>{2, 4});
  EXPECT_NEAR(d.estimate, 1, 1e-12);
  EXPECT_TRUE(std::isnan(difference_interval(std::vector<double>{1}, std::vector<double>{2}).low));
}

// The issue's `user_s -108 % ... -79.3 %`: a positive quantity near 0.01 s against 0.002 s with
// zeros among the reps and a large spread. The ratio's interval cannot go below -100 %.
TEST(Stats, RatioIntervalOfPositiveQuantityStaysAboveMinus100) {
  const std::vector<double> base = {0.01, 0.0, 0.03, 0.0, 0.01, 0.02, 0.0, 0.01};
  const std::vector<double> cand = {0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 0.0, 0.005};
  for (const Interval& r :
       {relative_change_interval(base, cand), ratio_of_means_interval(base, cand)}) {
    EXPECT_TRUE(r.log_scale);
    EXPECT_GT(r.low, -1);
    EXPECT_LT(r.low, r.estimate);
    EXPECT_GT(r.high, r.estimate);
    EXPECT_NEAR(r.estimate, 0.001875 / 0.01 - 1, 1e-9);
  }
  // Every spread: never below -100 %, whatever the sizes.
  for (double spread : {0.001, 0.01, 0.05, 0.5}) {
    std::vector<double> a, b;
    for (int i = 0; i < 6; ++i) {
      a.push_back(std::max(0.0, 0.01 + spread * (i % 3 - 1)));
      b.push_back(std::max(0.0, 0.002 + spread * (i % 2 ? 1 : -1)));
    }
    const Interval r = ratio_of_means_interval(a, b);
    ASSERT_TRUE(std::isfinite(r.low)) << spread;
    EXPECT_GT(r.low, -1) << spread;
  }
  // Identical samples: an interval around 0.
  const std::vector<double> same = {0.0, 0.01, 0.02, 0.0, 0.015};
  const Interval id = relative_change_interval(same, same);
  EXPECT_NEAR(id.estimate, 0, 1e-12);
  EXPECT_LT(id.low, 0);
  EXPECT_GT(id.high, 0);
  EXPECT_NEAR(std::log1p(id.low), -std::log1p(id.high), 1e-9);
  // A side whose mean is 0: no ratio (the report shows the difference).
  const Interval zero = ratio_of_means_interval(base, std::vector<double>{0, 0, 0});
  EXPECT_TRUE(std::isnan(zero.low));
  EXPECT_TRUE(std::isnan(relative_change_interval(std::vector<double>{0, 0}, cand).low));
}

TEST(Stats, RepsNeeded) {
  // 2 (1.959964 + 0.841621)^2 0.05^2 / 0.02^2 = 98.1
  EXPECT_EQ(reps_needed(0.05, 0.02), 99u);
  EXPECT_EQ(reps_needed(0.001, 0.02), kMinSamples);
  EXPECT_EQ(reps_needed(0.05, 0), 0u);
}

}  // namespace
}  // namespace foliolab
