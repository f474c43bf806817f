// Change points (analysis/change_points.h): fixtures for a step, a spike, two close steps and a
// count step; stability as sessions are appended; and, simulated, the false-alarm rate on pure
// noise and the power on a 10 % step. Seeded and deterministic (our own Box-Muller over
// std::mt19937_64, whose output the standard fixes).
//
// Stated bounds: on 30-point N(0,1) series the fraction with any change point (p <= 0.001, no
// magnitude floor) must stay at most 2.5 % (measured 0.5 % of 2000 series; 2.65 % at 100
// points, bound 6 %); a 10 % step under 3 % noise in 30 points must be found within one
// session of its place in at least 95 % of series (measured 96.8 %).
#include "analysis/change_points.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "testing/seeded_normal.h"

namespace foliolab {
namespace {

using Noise = SeededNormal;  // the simulations' shared seeded deviates

// `levels[i]` for `lengths[i]` points each, times (1 + cv × N(0,1)).
std::vector<double> series(const std::vector<double>& levels, const std::vector<size_t>& lengths,
                           double cv, uint64_t seed) {
  Noise g(seed);
  std::vector<double> x;
  for (size_t i = 0; i < levels.size(); ++i) {
    for (size_t k = 0; k < lengths[i]; ++k) x.push_back(levels[i] * (1 + cv * g.normal()));
  }
  return x;
}

std::vector<size_t> indices(const std::vector<ChangePoint>& cps) {
  std::vector<size_t> out;
  for (const ChangePoint& c : cps) out.push_back(c.index);
  return out;
}

TEST(ChangePoints, StepIsFoundWithTheSessionsEitherSide) {
  const std::vector<double> x = series({100, 110}, {12, 12}, 0.01, 1);
  const std::vector<ChangePoint> cps = mean_shift_change_points(x);
  ASSERT_EQ(indices(cps), (std::vector<size_t>{12}));
  const ChangePoint& c = cps[0];
  EXPECT_EQ(c.kind, ChangeKind::kMeanShift);
  EXPECT_NEAR(c.before, 100, 1.5);
  EXPECT_NEAR(c.after, 110, 1.5);
  EXPECT_NEAR(c.magnitude, 0.10, 0.02);
  EXPECT_EQ(c.n_before, 12u);
  EXPECT_EQ(c.n_after, 12u);
  EXPECT_LE(c.p, 0.001);
  EXPECT_GT(c.t, 0);
  // Flat: nothing.
  EXPECT_TRUE(mean_shift_change_points(series({100}, {24}, 0.01, 2)).empty());
}

TEST(ChangePoints, SingleSpikeIsNotAChangePointAnywhere) {
  for (double cv : {0.0, 0.01, 0.03}) {
    for (double spike : {0.5, 1.5, 3.0}) {
      for (size_t at = 0; at < 30; ++at) {
        std::vector<double> x = series({100}, {30}, cv, 7 + at);
        x[at] *= spike;
        EXPECT_TRUE(mean_shift_change_points(x).empty())
            << "cv " << cv << ", spike ×" << spike << " at " << at << ": flagged at "
            << mean_shift_change_points(x)[0].index;
      }
    }
  }
  // Two sessions alike at the end are not a change yet (a side has 3 at least, and a side's
  // most outlying point is left out once) …
  std::vector<double> x = series({100}, {20}, 0.01, 3);
  x.push_back(130);
  x.push_back(130);
  EXPECT_TRUE(mean_shift_change_points(x).empty());
  // … and a few more make one, in its place.
  for (int i = 0; i < 3; ++i) x.push_back(130);
  EXPECT_EQ(indices(mean_shift_change_points(x)), (std::vector<size_t>{20}));
}

TEST(ChangePoints, TwoCloseStepsAreBothFound) {
  const std::vector<double> x = series({100, 110, 121}, {10, 5, 10}, 0.01, 3);
  const std::vector<ChangePoint> cps = mean_shift_change_points(x);
  ASSERT_EQ(indices(cps), (std::vector<size_t>{10, 15}));
  EXPECT_NEAR(cps[0].after, 110, 2);  // the middle segment alone, not mixed with its neighbours
  EXPECT_NEAR(cps[1].before, 110, 2);
  EXPECT_EQ(cps[0].n_after, 5u);
  EXPECT_EQ(cps[1].n_before, 5u);
}

TEST(ChangePoints, SmallerThanTheMinimumMagnitudeIsNotAChangePoint) {
  // 1 % at 0.1 % noise: overwhelmingly significant, below the 2 % that matters.
  const std::vector<double> x = series({100, 101}, {15, 15}, 0.001, 5);
  EXPECT_TRUE(mean_shift_change_points(x).empty());
  EXPECT_EQ(indices(mean_shift_change_points(x, {.min_magnitude = 0.005})),
            (std::vector<size_t>{15}));
}

TEST(ChangePoints, CountStepIsEveryStepBeyondTheThreshold) {
  const std::vector<double> faults = {1025, 1025, 1025, 16385, 16385, 1025};
  const std::vector<ChangePoint> cps = count_change_points(faults, {});
  ASSERT_EQ(indices(cps), (std::vector<size_t>{3, 5}));
  EXPECT_EQ(cps[0].kind, ChangeKind::kCountStep);
  EXPECT_EQ(cps[0].before, 1025);
  EXPECT_EQ(cps[0].after, 16385);
  EXPECT_TRUE(std::isnan(cps[0].p));
  // Within the threshold is the same: 2048 kB or 0.5 % (rss_kb), whichever is larger.
  const CountThreshold rss{2048, 0.005};
  EXPECT_TRUE(count_change_points(std::vector<double>{60000, 61500, 59900, 61900}, rss).empty());
  EXPECT_EQ(indices(count_change_points(std::vector<double>{60000, 61500, 65000}, rss)),
            (std::vector<size_t>{2}));
  // From zero.
  const std::vector<ChangePoint> z = count_change_points(std::vector<double>{0, 0, 512}, {});
  ASSERT_EQ(z.size(), 1u);
  EXPECT_TRUE(std::isinf(z[0].magnitude));
}

TEST(ChangePoints, StepStaysWhereItIsAsSessionsAreAppended) {
  const std::vector<double> x = series({100, 110}, {12, 60}, 0.01, 11);
  size_t first = 0;  // the first length at which it is found
  for (size_t n = 12; n <= x.size(); ++n) {
    const auto cps = mean_shift_change_points(std::span<const double>(x.data(), n));
    if (cps.empty()) {
      EXPECT_EQ(first, 0u) << "found at " << first << " points, lost at " << n;
      continue;
    }
    EXPECT_EQ(indices(cps), (std::vector<size_t>{12})) << n << " points";
    if (first == 0) first = n;
  }
  EXPECT_GE(first, 15u);  // 3 sessions after the step at least
  EXPECT_LE(first, 18u);
}

// With noise at a third of the step the place can be a near tie between neighbouring sessions
// that a later session tips: measured, how often a change point with a full window after it
// (20 sessions) is not found at the same place at every later length up to 70.
TEST(ChangePoints, AppendedSessionsRarelyMoveAChangePoint) {
  int moved = 0, found = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const std::vector<double> x = series({100, 110}, {15, 55}, 0.03, 1000 + seed);
    std::vector<size_t> settled;
    for (const ChangePoint& c : mean_shift_change_points(std::span<const double>(x.data(), 35))) {
      if (c.index + 20 <= 35) settled.push_back(c.index);
    }
    if (settled.empty()) continue;
    ++found;
    for (size_t n = 36; n <= x.size(); ++n) {
      const auto now = indices(mean_shift_change_points(std::span<const double>(x.data(), n)));
      if (!std::includes(now.begin(), now.end(), settled.begin(), settled.end())) {
        ++moved;
        break;
      }
    }
  }
  std::printf("change points moved by later sessions: %d of %d\n", moved, found);
  EXPECT_GE(found, 180);
  EXPECT_LE(moved, found / 10);
}

TEST(ChangePoints, FalseAlarmRateOnNoiseIsBounded) {
  constexpr int kSeries = 2000;
  for (size_t length : {30, 100}) {
    Noise g(length);
    int flagged = 0;
    for (int s = 0; s < kSeries; ++s) {
      std::vector<double> x;
      for (size_t k = 0; k < length; ++k) x.push_back(g.normal());
      flagged += !mean_shift_change_points(x, {.min_magnitude = 0}).empty();
    }
    const double rate = static_cast<double>(flagged) / kSeries;
    std::printf("N(0,1), %zu points: %.2f %% of %d series have a change point\n", length,
                rate * 100, kSeries);
    EXPECT_LE(rate, length == 30 ? 0.025 : 0.06);
  }
}

TEST(ChangePoints, PowerOnATenPercentStepInThreePercentNoise) {
  constexpr int kSeries = 500;
  int hit = 0;
  for (int s = 0; s < kSeries; ++s) {
    const auto cps = mean_shift_change_points(series({100, 110}, {15, 15}, 0.03, 5000 + s));
    hit += std::any_of(cps.begin(), cps.end(), [](const ChangePoint& c) {
      return c.index >= 14 && c.index <= 16 && c.magnitude > 0;
    });
  }
  std::printf("10 %% step, 3 %% noise, 30 points: found in %d of %d\n", hit, kSeries);
  EXPECT_GE(hit, kSeries * 95 / 100);
}

}  // namespace
}  // namespace foliolab
