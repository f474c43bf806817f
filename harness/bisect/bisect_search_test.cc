#include "bisect/bisect_search.h"

#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <set>

namespace foliolab {
namespace {

// Runs a search to its end against a truth function (candidate → class, nullopt = skip).
struct Outcome {
  BisectState state;
  std::vector<BisectCulprit> culprits;
  size_t steps;
};
Outcome run(size_t n, const std::function<BisectObservation(size_t)>& truth) {
  BisectSearch s(n);
  std::set<size_t> asked;
  while (auto i = s.next()) {
    EXPECT_TRUE(asked.insert(*i).second) << "asked twice for " << *i;
    s.record(*i, truth(*i));
  }
  return {s.state(), s.culprits(), s.steps()};
}

BisectObservation observation_at(size_t culprit, size_t i) {
  return BisectObservation::of(i >= culprit ? "bad" : "good");
}

TEST(BisectSearch, EveryCulpritOfEverySeriesUpTo32InCeilLog2Steps) {
  for (size_t patches = 1; patches <= 32; ++patches) {
    const size_t bound = std::bit_width(patches - 1);  // ceil(log2 patches)
    for (size_t culprit = 1; culprit <= patches; ++culprit) {
      // Candidates: the prefixes 0..patches; prefix k has patches 1..k.
      const Outcome o = run(patches + 1, [&](size_t i) { return observation_at(culprit, i); });
      ASSERT_EQ(o.state, BisectState::kDone);
      ASSERT_EQ(o.culprits.size(), 1u);
      EXPECT_TRUE(o.culprits[0].exact());
      EXPECT_EQ(o.culprits[0].first, culprit) << patches << " patches";
      EXPECT_EQ(o.culprits[0].from, "good");
      EXPECT_EQ(o.culprits[0].to, "bad");
      EXPECT_LE(o.steps, bound) << patches << " patches, culprit " << culprit;
    }
  }
}

TEST(BisectSearch, EightVariantsSwitchingAtTheSixthTakeThreeSteps) {
  const Outcome o = run(8, [](size_t i) { return observation_at(5, i); });
  ASSERT_EQ(o.culprits.size(), 1u);
  EXPECT_EQ(o.culprits[0].first, 5u);  // the 6th variant
  EXPECT_EQ(o.steps, 3u);
}

TEST(BisectSearch, EndpointsAlikeDoNotReproduce) {
  const Outcome o = run(6, [](size_t) { return BisectObservation::of("1024"); });
  EXPECT_EQ(o.state, BisectState::kDoesNotReproduce);
  EXPECT_TRUE(o.culprits.empty());
  EXPECT_EQ(o.steps, 0u);
}

TEST(BisectSearch, AnEndpointThatCannotBeDecidedEndsTheSearch) {
  const Outcome o = run(6, [](size_t i) {
    return i == 5 ? BisectObservation::skip() : BisectObservation::of("good");
  });
  EXPECT_EQ(o.state, BisectState::kEndpointSkipped);
}

TEST(BisectSearch, APartialValueSplitsTheSearchAndFindsBothCulprits) {
  // 0..9: value 16 up to 2, 32 from 3, 64 from 7 (two culprits: 3 and 7).
  const Outcome o = run(10, [](size_t i) {
    return BisectObservation::of(i >= 7 ? "64" : i >= 3 ? "32" : "16");
  });
  ASSERT_EQ(o.state, BisectState::kDone);
  ASSERT_EQ(o.culprits.size(), 2u);
  EXPECT_EQ(o.culprits[0].first, 3u);
  EXPECT_EQ(o.culprits[0].from, "16");
  EXPECT_EQ(o.culprits[0].to, "32");
  EXPECT_EQ(o.culprits[1].first, 7u);
  EXPECT_EQ(o.culprits[1].to, "64");
}

TEST(BisectSearch, EveryPairOfCulpritsWithThreeValues) {
  for (size_t a = 1; a < 16; ++a) {
    for (size_t b = a + 1; b < 16; ++b) {
      const Outcome o = run(16, [&](size_t i) {
        return BisectObservation::of(i >= b ? "c" : i >= a ? "b" : "a");
      });
      ASSERT_EQ(o.culprits.size(), 2u) << a << "," << b;
      EXPECT_EQ(o.culprits[0].first, a);
      EXPECT_EQ(o.culprits[1].first, b);
      EXPECT_LE(o.steps, 2 * std::bit_width(size_t{14}));
    }
  }
}

TEST(BisectSearch, ASkippedStepIsWentAround) {
  // Culprit 6 of 0..8; candidate 4 (the first midpoint) cannot be decided.
  const Outcome o =
      run(9, [](size_t i) { return i == 4 ? BisectObservation::skip() : observation_at(6, i); });
  ASSERT_EQ(o.culprits.size(), 1u);
  EXPECT_TRUE(o.culprits[0].exact());
  EXPECT_EQ(o.culprits[0].first, 6u);
}

TEST(BisectSearch, SkipsNextToTheCulpritLeaveARange) {
  // Culprit 5; 4 and 5 both undecidable, 3 good and 6 bad: the first bad one is 4, 5 or 6
  // (git bisect's "there are only 'skip'ped commits left to test").
  const Outcome o = run(9, [](size_t i) {
    return i == 4 || i == 5 ? BisectObservation::skip() : observation_at(5, i);
  });
  ASSERT_EQ(o.culprits.size(), 1u);
  EXPECT_FALSE(o.culprits[0].exact());
  EXPECT_EQ(o.culprits[0].first, 4u);
  EXPECT_EQ(o.culprits[0].last, 6u);
}

TEST(BisectSearch, ReplayingTheLogInAnyOrderResumesWhereItStopped) {
  // A first search stopped after two steps; a second one fed the same observations (the log)
  // asks next for what the first would have asked, and ends with the same answer.
  const auto truth = [](size_t i) { return observation_at(11, i); };
  BisectSearch first(20);
  std::vector<size_t> log;
  for (int k = 0; k < 4; ++k) {
    const size_t i = *first.next();
    log.push_back(i);
    first.record(i, truth(i));
  }
  BisectSearch resumed(20);
  for (auto it = log.rbegin(); it != log.rend(); ++it) resumed.record(*it, truth(*it));
  EXPECT_EQ(resumed.next(), first.next());
  while (auto i = resumed.next()) resumed.record(*i, truth(*i));
  ASSERT_EQ(resumed.culprits().size(), 1u);
  EXPECT_EQ(resumed.culprits()[0].first, 11u);
  EXPECT_EQ(resumed.steps(), run(20, truth).steps);  // nothing observed twice
}

TEST(BisectSearch, StepsLeftBoundCoversTheWorstCase) {
  BisectSearch s(33);  // 32 patches
  EXPECT_EQ(s.steps_left_bound(), 5u);
  s.record(0, BisectObservation::of("good"));
  s.record(32, BisectObservation::of("bad"));
  EXPECT_EQ(s.steps_left_bound(), 5u);
  s.record(16, BisectObservation::of("good"));
  EXPECT_EQ(s.steps_left_bound(), 4u);
}

}  // namespace
}  // namespace foliolab
