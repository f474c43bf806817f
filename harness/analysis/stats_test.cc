#include "analysis/stats.h"

#include <gtest/gtest.h>

#include <cmath>
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
  const std::vector<double> v = {1000000000000.5,  1000000000001.25, 999999999999.25,
                                 1000000000002.0,  999999999998.5,   1000000000000.25};
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
  EXPECT_NEAR(welch_t_test(std::vector<double>{1, 2, 3, 4, 5},
                           std::vector<double>{2, 4, 6, 8, 10, 12}),
              0.0492843382067305, 1e-10);
  // Normal approximation with ties (mid-ranks, tie and continuity correction).
  EXPECT_NEAR(mann_whitney_u_test(a, b), 0.0152013038212153, 1e-10);
}

TEST(Stats, MannWhitneyExact) {
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}),
              0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1.1, 2.3, 3.5, 4.0},
                                  std::vector<double>{2.0, 5.1, 6.2, 7.3, 8.4}),
              1.0 / 9.0, 1e-12);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{3.2, 1.5, 4.8, 2.2, 9.9, 5.5, 6.1},
                                  std::vector<double>{7.7, 8.8, 10.1, 6.6, 12.0, 11.1}),
              0.008158508158508158, 1e-12);
  // U at the centre of its distribution: p capped at 1; one step off: 2 * 2/6.
  EXPECT_DOUBLE_EQ(mann_whitney_u_test(std::vector<double>{1, 4}, std::vector<double>{2, 3}),
                   1.0);
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 3}, std::vector<double>{2, 4}),
              2.0 / 3.0, 1e-12);
}

TEST(Stats, MannWhitneyTies) {
  EXPECT_NEAR(mann_whitney_u_test(std::vector<double>{1, 2, 2, 3, 3, 3, 4},
                                  std::vector<double>{3, 4, 4, 5, 5, 6, 7, 7}),
              0.00479334874618546, 1e-10);
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

}  // namespace
}  // namespace foliolab
