// The sequential test of bisect (analysis/sequential_class.h): its looks, its edge cases, and
// its error rates simulated (the figures quoted in its header and in docs/nightly.md), seeded and
// deterministic (testing/seeded_normal.h).
#include "analysis/sequential_class.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "bisect/bisect_search.h"
#include "testing/seeded_normal.h"

namespace foliolab {
namespace {

constexpr int kSteps = 2000;          // simulated steps per case
constexpr double kBadScale = 1.10;    // bad is 10 % slower than good
constexpr size_t kEndpointReps = 12;  // reps per end

// Log-normal values of median `scale` and coefficient of variation `cv`.
std::vector<double> draw(SeededNormal& g, size_t n, double cv, double scale) {
  const double sigma = std::sqrt(std::log1p(cv * cv));
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(scale * std::exp(sigma * g.normal()));
  return v;
}

struct Tally {
  int like_good = 0, like_bad = 0, undecided = 0, apart = 0, ends_alike = 0;  // steps
  size_t reps = 0;
  double rate(int k) const { return static_cast<double>(k) / kSteps; }
  double mean_reps() const { return static_cast<double>(reps) / kSteps; }
};

// kSteps steps: fresh ends (good at 1, bad at `bad`), then a candidate at `scale` measured
// look by look as classify_sequential asks.
Tally simulate(uint64_t seed, double cv, double scale, double bad = kBadScale,
               const SequentialPlan& plan = {}) {
  SeededNormal g(seed);
  Tally t;
  for (int i = 0; i < kSteps; ++i) {
    const std::vector<double> good_v = draw(g, kEndpointReps, cv, 1);
    const std::vector<double> bad_v = draw(g, kEndpointReps, cv, bad);
    std::vector<double> cand;
    SequentialDecision d = classify_sequential(good_v, bad_v, cand, plan);
    while (d.cls == SequentialClass::kNeedMore) {
      for (double x : draw(g, d.more_reps, cv, scale)) cand.push_back(x);
      d = classify_sequential(good_v, bad_v, cand, plan);
    }
    t.reps += cand.size();
    t.like_good += d.cls == SequentialClass::kLikeGood;
    t.like_bad += d.cls == SequentialClass::kLikeBad;
    t.undecided += d.cls == SequentialClass::kUndecided;
    t.apart += d.note == SequentialNote::kApartFromBoth;
    t.ends_alike += d.note == SequentialNote::kEndsAlike;
  }
  return t;
}

void print(const std::string& label, const Tally& t) {
  std::cout << fmt::format(
      "{:28} good {:5.1f} %  bad {:5.1f} %  undecided {:5.1f} % "
      "(apart from both {:5.1f} %, ends alike {:5.1f} %)  mean reps {:4.1f}\n",
      label, 100 * t.rate(t.like_good), 100 * t.rate(t.like_bad), 100 * t.rate(t.undecided),
      100 * t.rate(t.apart), 100 * t.rate(t.ends_alike), t.mean_reps());
}

// Three standard errors of a rate p over kSteps: the margin of the bounds below.
double se3(double p) { return 3 * std::sqrt(p * (1 - p) / kSteps); }

TEST(SequentialClass, LooksDoubleUpToMaxReps) {
  EXPECT_EQ(look_schedule({}), (std::vector<size_t>{4, 8, 16, 32}));
  EXPECT_EQ(look_schedule({.max_reps = 20}), (std::vector<size_t>{4, 8, 16, 20}));
  EXPECT_EQ(look_schedule({.max_reps = 4}), (std::vector<size_t>{4}));
  EXPECT_EQ(look_schedule({.first_reps = 1, .max_reps = 5}), (std::vector<size_t>{2, 4, 5}));
  EXPECT_DOUBLE_EQ(look_alpha({}), 0.05 / 4);
  // The first look's rank test at 4 against n reps per end reaches 0.0125 from n = 6 on.
  const size_t n = min_endpoint_reps({});
  EXPECT_LE(min_rank_p(4, n), look_alpha({}));
  EXPECT_GT(min_rank_p(4, n - 1), look_alpha({}));
}

const std::vector<double> kGood{1.000, 1.004, 0.997, 1.002, 0.999, 1.003,
                                0.998, 1.001, 1.005, 0.996, 1.000, 1.002};
std::vector<double> scaled(const std::vector<double>& v, double k, size_t n = 99) {
  std::vector<double> out;
  for (size_t i = 0; i < std::min(n, v.size()); ++i) out.push_back(k * v[i]);
  return out;
}

TEST(SequentialClass, OffScheduleSizesAskForTheNextLook) {
  const std::vector<double> bad = scaled(kGood, kBadScale);
  for (auto [n, more] : {std::pair<size_t, size_t>{0, 4}, {1, 3}, {5, 3}, {7, 1}, {9, 7}}) {
    const SequentialDecision d = classify_sequential(kGood, bad, scaled(kGood, 1.05, n));
    EXPECT_EQ(d.cls, SequentialClass::kNeedMore) << n;
    EXPECT_EQ(d.more_reps, more) << n;
    EXPECT_TRUE(std::isnan(d.position)) << "no look at " << n;
  }
}

TEST(SequentialClass, ClearCasesAtTheFirstLook) {
  const std::vector<double> bad = scaled(kGood, kBadScale);
  const SequentialDecision g = classify_sequential(kGood, bad, scaled(kGood, 1.001, 4));
  EXPECT_EQ(g.cls, SequentialClass::kLikeGood);
  EXPECT_NEAR(g.position, 0.01, 0.02);
  EXPECT_LE(g.p_bad, look_alpha({}));
  const SequentialDecision b = classify_sequential(kGood, bad, scaled(kGood, 1.099, 4));
  EXPECT_EQ(b.cls, SequentialClass::kLikeBad);
  EXPECT_NEAR(b.position, 0.99, 0.02);
  // Halfway, and tight: apart from both ends, a partial effect.
  const SequentialDecision h = classify_sequential(kGood, bad, scaled(kGood, 1.05, 4));
  EXPECT_EQ(h.cls, SequentialClass::kUndecided);
  EXPECT_EQ(h.note, SequentialNote::kApartFromBoth);
  // Beyond bad (twice its change): not like bad either.
  const SequentialDecision w = classify_sequential(kGood, bad, scaled(kGood, 1.2, 4));
  EXPECT_EQ(w.note, SequentialNote::kApartFromBoth);
  EXPECT_NEAR(w.position, 1.9, 0.1);
  // The other direction: bad is faster.
  const std::vector<double> fast = scaled(kGood, 0.9);
  EXPECT_EQ(classify_sequential(kGood, fast, scaled(kGood, 0.901, 4)).cls,
            SequentialClass::kLikeBad);
  EXPECT_EQ(classify_sequential(kGood, fast, scaled(kGood, 1.001, 4)).cls,
            SequentialClass::kLikeGood);
}

TEST(SequentialClass, NoisyCandidateNeedsMoreThenMaxReps) {
  const std::vector<double> bad = scaled(kGood, kBadScale);
  // Values spread from 0.8 to 1.3: nothing resolves at any look.
  std::vector<double> wide;
  for (size_t i = 0; i < 32; ++i) wide.push_back(i % 2 ? 0.8 + 0.01 * i : 1.3 - 0.01 * i);
  const SequentialDecision d4 = classify_sequential(kGood, bad, scaled(wide, 1, 4));
  EXPECT_EQ(d4.cls, SequentialClass::kNeedMore);
  EXPECT_EQ(d4.more_reps, 4u);
  EXPECT_FALSE(std::isnan(d4.position));
  EXPECT_EQ(classify_sequential(kGood, bad, scaled(wide, 1, 16)).more_reps, 16u);
  const SequentialDecision last = classify_sequential(kGood, bad, wide);
  EXPECT_EQ(last.cls, SequentialClass::kUndecided);
  EXPECT_EQ(last.note, SequentialNote::kMaxReps);
}

TEST(SequentialClass, EndsAlikeOrValuesNotPositiveAreUndecidedAtOnce) {
  const SequentialDecision same = classify_sequential(kGood, scaled(kGood, 1.001), {});
  EXPECT_EQ(same.cls, SequentialClass::kUndecided);
  EXPECT_EQ(same.note, SequentialNote::kEndsAlike);
  EXPECT_EQ(classify_sequential(kGood, std::vector<double>{1.1}, {}).note,
            SequentialNote::kEndsAlike);
  std::vector<double> zero = kGood;
  zero[3] = 0;
  EXPECT_EQ(classify_sequential(zero, scaled(kGood, kBadScale), {}).note,
            SequentialNote::kNotPositive);
}

TEST(SequentialClass, AdapterGivesTheBisectClassOrASkip) {
  const std::vector<double> bad = scaled(kGood, kBadScale);
  const SequentialStep g = sequential_step(kGood, bad, scaled(kGood, 1.001, 4));
  EXPECT_EQ(g.cls, "good");
  EXPECT_EQ(g.more_reps, 0u);
  EXPECT_EQ(sequential_step(kGood, bad, scaled(kGood, 1.099, 4)).cls, "bad");
  const SequentialStep more = sequential_step(kGood, bad, scaled(kGood, 1.05, 3));
  EXPECT_FALSE(more.cls);
  EXPECT_EQ(more.more_reps, 1u);
  const SequentialStep skip = sequential_step(kGood, bad, scaled(kGood, 1.05, 4));
  EXPECT_FALSE(skip.cls);
  EXPECT_EQ(skip.more_reps, 0u);
  EXPECT_EQ(sequential_note_name(skip.decision.note), "apart from both ends");
}

// A candidate equal to an end, CV 1 % and 5 %, both directions of the change.
TEST(SequentialClass, SimulatedCandidateEqualToAnEnd) {
  const double alpha = SequentialPlan{}.alpha;
  std::cout << fmt::format("{} steps each; bad {:+.0f} % from good; {} reps per end\n", kSteps,
                           100 * (kBadScale - 1), kEndpointReps);
  struct Case {
    double cv, min_right, max_reps;  // measured, with a margin
  };
  for (const Case c : {Case{0.01, 0.98, 4.5}, Case{0.05, 0.75, 22}}) {
    const Tally good = simulate(0x5e9a + static_cast<uint64_t>(1000 * c.cv), c.cv, 1);
    const Tally bad = simulate(0x5e9b + static_cast<uint64_t>(1000 * c.cv), c.cv, kBadScale);
    const Tally fast = simulate(0x5e9c + static_cast<uint64_t>(1000 * c.cv), c.cv, 1, 0.9);
    print(fmt::format("= good, CV {:.0f} %", 100 * c.cv), good);
    print(fmt::format("= bad, CV {:.0f} %", 100 * c.cv), bad);
    print(fmt::format("= good, bad -10 %, CV {:.0f} %", 100 * c.cv), fast);
    EXPECT_LE(good.rate(good.like_bad), alpha) << c.cv;
    EXPECT_LE(bad.rate(bad.like_good), alpha) << c.cv;
    EXPECT_LE(fast.rate(fast.like_bad), alpha) << c.cv;
    EXPECT_GE(good.rate(good.like_good), c.min_right) << c.cv;
    EXPECT_GE(bad.rate(bad.like_bad), c.min_right) << c.cv;
    EXPECT_GE(fast.rate(fast.like_good), c.min_right) << c.cv;
    EXPECT_LE(good.mean_reps(), c.max_reps) << c.cv;
    EXPECT_LE(bad.mean_reps(), c.max_reps) << c.cv;
  }
}

// At the geometric midpoint, the boundary of the hypotheses: decided either way with
// probability <= alpha (the bound is tight here), else undecided.
TEST(SequentialClass, SimulatedHalfwayCandidateIsUndecided) {
  const double alpha = SequentialPlan{}.alpha;
  const double mid = std::sqrt(kBadScale);
  for (double cv : {0.01, 0.05}) {
    const Tally t = simulate(0x6a1f + static_cast<uint64_t>(1000 * cv), cv, mid);
    print(fmt::format("halfway, CV {:.0f} %", 100 * cv), t);
    EXPECT_LE(t.rate(t.like_good + t.like_bad), alpha) << cv;
    EXPECT_EQ(t.like_good + t.like_bad + t.undecided, kSteps);
  }
}

// Ends 0.5 % apart at CV 5 %: mostly no verdict between them, and no step is measured; when
// the ends do resolve (the verdict's own false alarm), the candidate is still undecided.
TEST(SequentialClass, SimulatedEndsTooClose) {
  const double alpha = SequentialPlan{}.alpha;
  const Tally t = simulate(0xc105e, 0.05, 1, 1.005);
  print("ends 0.5 % apart, CV 5 %", t);
  EXPECT_GE(t.rate(t.ends_alike), 1 - alpha - se3(alpha));
  EXPECT_LE(t.rate(t.like_good + t.like_bad), 0.01);
}

// Whole bisections of 8 candidates (the real search, the adapter), the culprit at each
// position in turn: the culprit is named (exactly, or inside a range that skips left), never
// a wrong one, within the predicted reps.
struct BisectTally {
  int exact = 0, within = 0, wrong = 0, total = 0;
  size_t reps = 0, most = 0;
};

constexpr size_t kCandidates = 8;

// One bisection with the culprit at `culprit`; the ends need no test (their classes given).
void bisect_once(SeededNormal& g, double cv, size_t culprit, BisectTally* t) {
  const std::vector<double> good = draw(g, kEndpointReps, cv, 1);
  const std::vector<double> bad = draw(g, kEndpointReps, cv, kBadScale);
  size_t used = 2 * kEndpointReps;
  BisectSearch s(kCandidates);
  while (auto i = s.next()) {
    if (*i == 0 || *i == kCandidates - 1) {
      s.record(*i, BisectObservation::of(*i == 0 ? "good" : "bad"));
      continue;
    }
    std::vector<double> cand;
    SequentialStep step = sequential_step(good, bad, cand);
    while (step.more_reps > 0) {
      for (double x : draw(g, step.more_reps, cv, *i < culprit ? 1.0 : kBadScale)) {
        cand.push_back(x);
      }
      step = sequential_step(good, bad, cand);
    }
    used += cand.size();
    s.record(*i, step.cls ? BisectObservation::of(*step.cls) : BisectObservation::skip());
  }
  const std::vector<BisectCulprit>& c = s.culprits();
  const bool one = c.size() == 1 && c[0].first <= culprit && culprit <= c[0].last;
  t->exact += one && c[0].exact();
  t->within += one && !c[0].exact();
  t->wrong += !one;
  t->total += 1;
  t->reps += used;
  t->most = std::max(t->most, used);
}

TEST(SequentialClass, SimulatedBisectionsNameTheCulprit) {
  const BisectCost cost = predict_bisect_cost(
      {}, {.candidates = kCandidates, .endpoint_reps = kEndpointReps, .confirm_runs = 0});
  SeededNormal g(0xb15ec7);
  struct Case {
    double cv, min_exact;  // measured, with a margin
  };
  for (const Case c : {Case{0.01, 0.95}, Case{0.05, 0.6}}) {
    BisectTally t;
    for (size_t culprit = 1; culprit < kCandidates; ++culprit) {
      for (int r = 0; r < 70; ++r) bisect_once(g, c.cv, culprit, &t);
    }
    const double total = t.total;
    std::cout << fmt::format(
        "{} bisections of {}, CV {:.0f} %: exact {:.1f} %, in a range {:.1f} %, wrong {:.1f} %; "
        "reps mean {:.0f}, most {} (predicted {} .. {}, bound {})\n",
        t.total, kCandidates, 100 * c.cv, 100 * t.exact / total, 100 * t.within / total,
        100 * t.wrong / total, static_cast<double>(t.reps) / total, t.most, cost.reps_best,
        cost.reps_worst, cost.reps_bound);
    EXPECT_LE(t.wrong / total, SequentialPlan{}.alpha) << c.cv;
    EXPECT_GE(t.exact / total, c.min_exact) << c.cv;
    EXPECT_LE(t.most, cost.reps_bound) << c.cv;
    EXPECT_GE(static_cast<double>(t.reps) / total, static_cast<double>(cost.reps_best)) << c.cv;
  }
}

TEST(SequentialClass, PredictedCostOfABisection) {
  const BisectCost c = predict_bisect_cost({}, {.candidates = 8});
  EXPECT_EQ(c.steps_best, 2u);
  EXPECT_EQ(c.steps_worst, 3u);
  const size_t fixed = 2 * 12 + 2 * 3 * 12;  // ends, then 3 confirmation runs per side
  EXPECT_EQ(c.reps_best, fixed + 2 * 4);
  EXPECT_EQ(c.reps_worst, fixed + 3 * 32);
  EXPECT_EQ(c.reps_bound, fixed + 6 * 32);
  EXPECT_EQ(c.runs_best, 2u + 6 + 2);
  EXPECT_EQ(c.runs_worst, 2u + 6 + 3 * 4);
  EXPECT_EQ(c.runs_bound, 2u + 6 + 6 * 4);
  const BisectCost two = predict_bisect_cost({}, {.candidates = 2, .confirm_runs = 0});
  EXPECT_EQ(two.reps_best, 24u);
  EXPECT_EQ(two.reps_bound, 24u);
}

// The step counts are the search's own: over every culprit position, the fewest and the most
// steps BisectSearch takes.
TEST(SequentialClass, PredictedStepsMatchTheSearch) {
  for (size_t n = 3; n <= 33; ++n) {
    size_t least = n, most = 0;
    for (size_t culprit = 1; culprit < n; ++culprit) {
      BisectSearch s(n);
      while (auto i = s.next()) s.record(*i, BisectObservation::of(*i < culprit ? "good" : "bad"));
      least = std::min(least, s.steps());
      most = std::max(most, s.steps());
    }
    const BisectCost c = predict_bisect_cost({}, {.candidates = n});
    EXPECT_EQ(c.steps_best, least) << n;
    EXPECT_EQ(c.steps_worst, most) << n;
  }
}

}  // namespace
}  // namespace foliolab
