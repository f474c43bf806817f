#include "model/distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "testing/seeded_normal.h"

namespace foliolab {
namespace {

Distribution of_values(const std::vector<double>& values) {
  DistributionBuilder b("ns");
  for (double v : values) b.add(v);
  return b.take();
}

TEST(Distribution, FewValuesAreKeptExactlyAndQuantilesAreNearestRank) {
  const Distribution d = of_values({5, 1, 3, 3, 2, 4, 100, 3, 2, 1});
  EXPECT_EQ(d.count, 10);
  EXPECT_EQ(d.sum, 124);
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 100);
  ASSERT_EQ(d.buckets.size(), 6u);  // 1 2 3 4 5 100, each a point
  EXPECT_EQ(d.buckets[2], (DistributionBucket{3, 3, 3}));
  EXPECT_EQ(d.quantile(0.5), 3);  // rank 5 of 1 1 2 2 3 3 3 4 5 100
  EXPECT_EQ(d.quantile(0.9), 5);  // rank 9
  EXPECT_EQ(d.quantile(0.99), 100);
  EXPECT_EQ(d.quantile(1), 100);
  EXPECT_EQ(d.quantile(0), 1);
  EXPECT_EQ(distribution_problem(d), "");
}

TEST(Distribution, ManyValuesAreBinnedWithinThreePercent) {
  SeededNormal g(56);
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i) values.push_back(1000 * std::exp(g.normal()));
  const Distribution d = of_values(values);
  EXPECT_EQ(distribution_problem(d), "");
  EXPECT_LT(d.buckets.size(), 1000u);  // binned, not 20000 points
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99}) {
    const double truth = values[static_cast<size_t>(std::ceil(q * values.size())) - 1];
    EXPECT_NEAR(d.quantile(q) / truth, 1, 0.032) << q;
  }
  EXPECT_EQ(d.quantile(1), values.back());
}

TEST(Distribution, ZeroAndNegativeValuesBinInOrder) {
  std::vector<double> values;
  for (int i = -1500; i <= 1500; ++i) values.push_back(i * 0.5);
  const Distribution d = of_values(values);
  EXPECT_EQ(distribution_problem(d), "");
  EXPECT_NEAR(d.quantile(0.5), 0, 0.5);
  EXPECT_EQ(d.min, -750);
}

TEST(Distribution, ProblemsOfAShapeAreNamed) {
  Distribution d = of_values({1, 2, 3});
  d.count = 4;
  EXPECT_NE(distribution_problem(d).find("buckets count 3"), std::string::npos);
  d = of_values({1, 2, 3});
  std::swap(d.buckets[0], d.buckets[1]);
  EXPECT_NE(distribution_problem(d).find("out of order"), std::string::npos);
  d = of_values({1, 2, 3});
  d.buckets[1] = {1, 2, 1};  // overlaps the point 1
  EXPECT_NE(distribution_problem(d).find("overlaps"), std::string::npos);
  d = Distribution{};
  EXPECT_EQ(distribution_problem(d), "count below 1");
}

TEST(Distribution, DerivedNamesReadQuantilesAndTheCount) {
  const std::map<std::string, Distribution> dists = {{"lat_us", of_values({1, 2, 3, 4})}};
  EXPECT_EQ(distribution_value(dists, "lat_us.p50"), 2);
  EXPECT_EQ(distribution_value(dists, "lat_us.max"), 4);
  EXPECT_EQ(distribution_value(dists, "lat_us.count"), 4);
  EXPECT_EQ(distribution_value(dists, "lat_us.p75"), std::nullopt);
  EXPECT_EQ(distribution_value(dists, "other.p50"), std::nullopt);
  ASSERT_TRUE(parse_quantile_name("kprobe.handle_mm_fault.p99"));
  EXPECT_EQ(parse_quantile_name("kprobe.handle_mm_fault.p99")->base, "kprobe.handle_mm_fault");
  EXPECT_FALSE(parse_quantile_name("faults"));
  EXPECT_EQ(distribution_value_names("x").size(), 5u);
}

}  // namespace
}  // namespace foliolab
