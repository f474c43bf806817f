// The verdict rule on a distribution's quantiles simulated (docs/comparisons.md#distributions):
// each side's reps give per-rep p50, p90, p99 and max, each judged by the timing rule at
// kAlpha / 4. On identical distributions no quantile of the four may be called a change in more
// than 5 % of A/A pairs, at every n from 2 to 30 reps a side, for skewed, bimodal and
// heavy-tailed values; a 30 % slower tail is still found. Seeded (testing/seeded_normal.h).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/verdict.h"
#include "catalog/metric_catalog.h"
#include "model/distribution.h"
#include "testing/seeded_normal.h"

namespace foliolab {
namespace {

constexpr int kDistPairs = 200;    // A/A pairs per (n, shape)
constexpr int kValuesPerRep = 40;  // values in one rep's histogram

class DistGen : public SeededNormal {
 public:
  using SeededNormal::SeededNormal;
  // One latency-like value of the named shape (ns), times `scale` above the median.
  double draw(const std::string& shape, double tail_scale) {
    double v = 0;
    if (shape == "lognormal") v = 1000 * std::exp(0.6 * normal());
    if (shape == "bimodal") v = (uniform() < 0.8 ? 300 : 3000) * (1 + 0.05 * normal());
    if (shape == "pareto") v = 500 / std::pow(uniform(), 1 / 1.5);  // alpha 1.5: infinite variance
    return v > 1000 ? 1000 + (v - 1000) * tail_scale : v;
  }
  Distribution rep(const std::string& shape, double tail_scale = 1) {
    DistributionBuilder b("ns");
    for (int i = 0; i < kValuesPerRep; ++i) b.add(draw(shape, tail_scale));
    return b.take();
  }
};

// Each quantile's per-rep values on a side of n reps.
std::vector<std::vector<double>> per_rep_quantiles(DistGen& g, const std::string& shape, size_t n,
                                                   double tail_scale) {
  std::vector<std::vector<double>> out(kDistributionQuantiles.size());
  for (size_t r = 0; r < n; ++r) {
    const Distribution d = g.rep(shape, tail_scale);
    for (size_t q = 0; q < out.size(); ++q)
      out[q].push_back(d.quantile(kDistributionQuantiles[q].q));
  }
  return out;
}

// Whether any of the four quantiles is called a change (a family-wise alarm).
bool any_directional(DistGen& g, const std::string& shape, size_t n, double tail_scale) {
  const auto a = per_rep_quantiles(g, shape, n, 1), b = per_rep_quantiles(g, shape, n, tail_scale);
  bool alarm = false;
  for (size_t q = 0; q < a.size(); ++q) {
    const std::string metric =
        "kprobe.handle_mm_fault.latency_ns." + std::string(kDistributionQuantiles[q].suffix);
    const MetricInfo info = metric_info(metric);
    const Delta d = compare_samples(info, sample_stats(a[q]), sample_stats(b[q]), {});
    if (d.verdict == Verdict::kImproved || d.verdict == Verdict::kRegressed ||
        d.verdict == Verdict::kChanged) {
      EXPECT_LE(d.mann_whitney_p, kAlpha / 4) << metric;
      alarm = true;
    }
  }
  return alarm;
}

TEST(DistributionVerdict, QuantilesAreTimingsJudgedAsAFamilyOfFour) {
  const MetricInfo info = metric_info("kprobe.handle_mm_fault.latency_ns.p99");
  EXPECT_EQ(info.kind, MetricKind::kTiming);
  EXPECT_EQ(info.family, 4);
  EXPECT_EQ(info.better, Better::kLower);
  EXPECT_EQ(info.unit, "ns");
  EXPECT_EQ(metric_info("fault_latency.count").kind, MetricKind::kCount);
  const MetricDecls declared = {{"lat", {"us", Better::kLower, MetricKind::kCount, true, {}}}};
  EXPECT_EQ(metric_info("lat.p50", declared).unit, "us");
  EXPECT_EQ(metric_info("lat.p50", declared).kind, MetricKind::kTiming);
}

TEST(DistributionVerdict, AAFamilyFalseAlarmRateIsAtMostFivePercentAtEveryN) {
  DistGen g(0x6469737473);
  std::cout << "distribution A/A: any of p50/p90/p99/max called a change (" << kDistPairs
            << " pairs each)\n   n  lognormal    bimodal     pareto\n";
  const std::vector<std::string> shapes = {"lognormal", "bimodal", "pareto"};
  std::vector<int> total(shapes.size(), 0);
  const double se = std::sqrt(kAlpha * (1 - kAlpha) / kDistPairs);
  for (size_t n = 2; n <= 30; ++n) {
    std::string line = fmt::format("{:4}", n);
    for (size_t s = 0; s < shapes.size(); ++s) {
      int alarms = 0;
      for (int i = 0; i < kDistPairs; ++i) alarms += any_directional(g, shapes[s], n, 1);
      total[s] += alarms;
      const double rate = static_cast<double>(alarms) / kDistPairs;
      // A cell of 200 pairs has a standard error of 1.5 %: 5 % + 3 of them, as verdict_test.
      EXPECT_LE(rate, kAlpha + 3 * se) << shapes[s] << " n=" << n;
      if (n <= 4) {
        EXPECT_EQ(alarms, 0) << "p cannot reach 0.0125 below 5 reps a side";
      }
      line += fmt::format("  {:8.1f} %", 100 * rate);
    }
    std::cout << line << "\n";
  }
  // Over every n (5800 pairs a shape, a standard error of 0.3 %): at most 5 %.
  std::string line = " all";
  for (size_t s = 0; s < shapes.size(); ++s) {
    const double rate = static_cast<double>(total[s]) / (29.0 * kDistPairs);
    EXPECT_LE(rate, kAlpha) << shapes[s];
    line += fmt::format("  {:8.2f} %", 100 * rate);
  }
  std::cout << line << "\n";
}

TEST(DistributionVerdict, ASlowerTailIsFoundAtTenReps) {
  DistGen g(0x7461696c);
  int found = 0;
  for (int i = 0; i < 50; ++i) found += any_directional(g, "lognormal", 10, 2);
  EXPECT_GE(found, 45) << "of 50";  // the tail above 1 us twice as long
}

}  // namespace
}  // namespace foliolab
