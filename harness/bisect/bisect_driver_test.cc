#include "bisect/bisect_driver.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "util/fs.h"

#include "testing/fake_bisect_evaluator.h"
#include "testing/temp_dir.h"

namespace foliolab {
namespace {

std::string step_at(size_t culprit, size_t i) { return i >= culprit ? "bad" : "good"; }

TEST(BisectDriver, FindsAndConfirmsTheCulprit) {
  const ScopedTestDir dir("bisect");
  auto log = BisectLog::open(dir / "bisect.json");
  ASSERT_TRUE(log.ok());
  FakeBisectEvaluator eval(7, [](size_t i) { return step_at(3, i); });  // 6 patches, culprit 3
  std::vector<std::string> lines;
  BisectHooks hooks{.on_step = [&](const BisectStep& s, size_t k, size_t bound) {
    lines.push_back(fmt::format("[step {}/{}] {}", k, bound, s.cls.value_or("skip")));
  }};
  auto out = run_bisect(eval, *log, 3, hooks);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->culprits.size(), 1u);
  EXPECT_EQ(out->culprits[0].first, 3u);
  ASSERT_EQ(out->confirmations.size(), 1u);
  EXPECT_TRUE(out->confirmed());
  EXPECT_EQ(eval.confirmed, (std::vector<std::pair<size_t, size_t>>{{2, 3}}));
  EXPECT_EQ(eval.observed.size(), out->steps.size());  // every step observed once
  EXPECT_LE(lines.size(), 3u + 2u);
}

TEST(BisectDriver, AWrongAnswerIsCaughtByConfirmation) {
  const ScopedTestDir dir("bisect");
  auto log = BisectLog::open(dir / "bisect.json");
  // Culprit 5 of 0..8; the first look at 4 says "bad" (a flake): the search then names 4,
  // and the fresh runs of 3 against 4 do not confirm it.
  FakeBisectEvaluator eval(9, [](size_t i) { return step_at(5, i); });
  eval.wrong[4] = "bad";
  auto out = run_bisect(eval, *log, 3);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->culprits.size(), 1u);
  EXPECT_EQ(out->culprits[0].first, 4u);
  EXPECT_FALSE(out->confirmed());
  EXPECT_FALSE(out->confirmations.at(0).confirmed);
}

TEST(BisectDriver, DoesNotReproduceWithoutConfirming) {
  const ScopedTestDir dir("bisect");
  auto log = BisectLog::open(dir / "bisect.json");
  FakeBisectEvaluator eval(6, [](size_t) { return "1024"; });
  auto out = run_bisect(eval, *log, 3);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->state, BisectState::kDoesNotReproduce);
  EXPECT_FALSE(out->confirmed());
  EXPECT_TRUE(eval.confirmed.empty());
}

TEST(BisectDriver, AKilledBisectionResumesFromItsLogAndRunsNothingTwice) {
  const ScopedTestDir dir("bisect");
  const auto file = dir / "bisect.json";
  const auto truth = [](size_t i) { return step_at(11, i); };
  {
    auto log = BisectLog::open(file);
    FakeBisectEvaluator first(20, truth);
    first.fail_after = 4;  // killed during the 5th observation
    auto out = run_bisect(first, *log, 2);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().kind, ErrorKind::kEnvironment);
    EXPECT_EQ(first.observed.size(), 4u);
  }
  auto log = BisectLog::open(file);
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->steps().size(), 4u);
  FakeBisectEvaluator second(20, truth);
  auto out = run_bisect(second, *log, 2);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->replayed, 4u);
  EXPECT_EQ(out->culprits.at(0).first, 11u);
  EXPECT_TRUE(out->confirmed());
  for (size_t k = 0; k < 4; ++k) {
    const size_t done = log->steps()[k].candidate;
    EXPECT_EQ(std::count(second.observed.begin(), second.observed.end(), done), 0) << done;
  }
  // A third call (the bisection already ended) only replays, confirmation included.
  FakeBisectEvaluator third(20, truth);
  auto again = run_bisect(third, *log, 2);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(third.observed.empty());
  EXPECT_TRUE(third.confirmed.empty());
  EXPECT_TRUE(again->confirmed());
}

TEST(BisectDriver, ADamagedLogIsAnErrorNotAFreshStart) {
  const ScopedTestDir dir("bisect");
  const auto file = dir / "bisect.json";
  ASSERT_TRUE(write_file_atomic(file, "{\"schema\": 1, \"steps\": [{\"cand").ok());
  auto log = BisectLog::open(file);
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("bisect.json"), std::string::npos);
}

}  // namespace
}  // namespace foliolab
