// workloads/swap_rounds.h, compiled as the guest compiles it (C) and here as C++: the rounds of
// tools/mm/thp_swap_allocator_test (Linux 6.12) read into the thp-swap-allocator workload's
// metrics. The text is the program's own format; the counts are the shape of Barry Song's
// example in the commit that added it (fallback rising round after round without the mTHP
// swap-cluster allocator).
#include "../../workloads/swap_rounds.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace foliolab {
namespace {

std::unique_ptr<wl_swap_rounds> parse_rounds(const std::string& text) {
  auto r = std::make_unique<wl_swap_rounds>();
  wl_swap_parse(text.c_str(), r.get());
  return r;
}

TEST(SwapRounds, ReadsTheProgramsRounds) {
  auto r = parse_rounds(
      "madvise dontneed: Invalid argument\n"
      "Iteration 1: swpout inc: 224, swpout fallback inc: 0, Fallback percentage: 0.00%\n"
      "Iteration 2: swpout inc: 131, swpout fallback inc: 101, Fallback percentage: 43.53%\n"
      "Iteration 3: swpout inc: 0, swpout fallback inc: 0, Fallback percentage: -nan%\n"
      "Iteration 4: swpout inc: 0, swpout fallback inc: 218, Fallback percentage: 100.00%");
  ASSERT_EQ(r->n, 4u);
  EXPECT_EQ(r->out_of_order, 0u);
  EXPECT_EQ(r->round[1].swpout, 131u);
  EXPECT_EQ(r->round[1].fallback, 101u);
  const wl_swap_summary all = wl_swap_summarize(r.get(), 0, r->n);
  EXPECT_EQ(all.swpout, 355u);
  EXPECT_EQ(all.fallback, 319u);
  EXPECT_NEAR(all.pooled_pct, 100.0 * 319 / 674, 1e-9);
  EXPECT_NEAR(all.mean_pct, (0 + 100.0 * 101 / 232 + 100) / 3, 1e-9);  // the idle round is none
  EXPECT_EQ(all.min_pct, 0);
  EXPECT_EQ(all.max_pct, 100);
  EXPECT_EQ(all.idle, 1u);
  EXPECT_EQ(all.no_fallback, 1u);
  // Four rounds in tenths: [0,0) [0,0) [0,1) ...: empty tenths have no percentage.
  EXPECT_EQ(wl_swap_decile(r.get(), 0).rounds, 0u);
  EXPECT_EQ(wl_swap_decile(r.get(), 0).pooled_pct, -1);
  EXPECT_EQ(wl_swap_decile(r.get(), 9).pooled_pct, 100);
}

TEST(SwapRounds, TenthsOfAHundredRounds) {
  std::string text;
  for (int i = 1; i <= 100; ++i) {
    text += "Iteration " + std::to_string(i) + ": swpout inc: " + std::to_string(100 - i) +
            ", swpout fallback inc: " + std::to_string(i) + ", Fallback percentage: x%\n";
  }
  auto r = parse_rounds(text);
  ASSERT_EQ(r->n, 100u);
  const wl_swap_summary first = wl_swap_decile(r.get(), 0), last = wl_swap_decile(r.get(), 9);
  EXPECT_EQ(first.rounds, 10u);
  EXPECT_NEAR(first.pooled_pct, 100.0 * 55 / 1000, 1e-9);  // 1 + ... + 10 of 10 x 100
  EXPECT_NEAR(last.pooled_pct, 100.0 * 955 / 1000, 1e-9);
}

TEST(SwapRounds, GarbageIsNoRoundAndOrderIsChecked) {
  auto r = parse_rounds(
      "Iteration x: swpout inc: 1, swpout fallback inc: 2, F\n"
      "Iteration 1: swpout inc: 1\n"
      "Iteration 2: swpout inc: 5, swpout fallback inc: 0, Fallback percentage: 0.00%\n" +
      std::string(2000, 'I') + "\n" + "\n\n");
  ASSERT_EQ(r->n, 1u);
  EXPECT_EQ(r->out_of_order, 1u);  // round 2 without round 1
  EXPECT_EQ(parse_rounds("")->n, 0u);
  EXPECT_EQ(wl_swap_summarize(parse_rounds("").get(), 0, 0).pooled_pct, -1);
}

}  // namespace
}  // namespace foliolab
