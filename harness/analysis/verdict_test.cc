// The verdict rule (compare_samples) simulated: its false-alarm rate on identical samples (A/A)
// and its power, for the figures in docs/comparisons.md. Seeded and
// deterministic (testing/seeded_normal.h).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "catalog/metric_catalog.h"
#include "report/cells.h"
#include "testing/seeded_normal.h"

namespace foliolab {
namespace {

constexpr int kPairs = 2000;  // A/A pairs per (n, distribution)
const size_t kSizes[] = {2, 3, 5, 8, 20};

class Gen : public SeededNormal {
 public:
  using SeededNormal::SeededNormal;
  // One timing-like sample of the named shape, mean about 1.
  double draw(const std::string& shape, double cv) {
    if (shape == "normal") return 1 + cv * normal();
    if (shape == "lognormal") return std::exp(0.5 * normal());  // CV 53 %, skewed
    // bimodal: a fast and a slow mode 20 % apart, 1 % noise in each
    return (uniform() < 0.5 ? 1.0 : 1.2) * (1 + 0.01 * normal());
  }
};

const MetricInfo kTiming{"s", Better::kLower, MetricKind::kTiming, true, {}};

bool directional(Verdict v) {
  return v == Verdict::kImproved || v == Verdict::kRegressed || v == Verdict::kChanged;
}

std::vector<double> sample(Gen& g, const std::string& shape, size_t n, double cv,
                           double scale = 1) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(scale * g.draw(shape, cv));
  return v;
}

// A directional verdict must never come with a shown p above kAlpha.
void expect_p_agrees(const Delta& d) {
  if (directional(d.verdict) && d.basis == VerdictBasis::kRankTest) {
    EXPECT_LE(d.mann_whitney_p, kAlpha);
  }
}

TEST(Verdict, AAFalseAlarmRateIsAtMostFivePercent) {
  Gen g(0x41412d73696d);
  std::cout << "A/A false alarms (" << kPairs << " pairs each; bound 5 % + 3 SE)\n";
  std::cout << "   n     normal  lognormal    bimodal\n";
  for (size_t n : kSizes) {
    std::string line = fmt::format("{:4}", n);
    for (const std::string shape : {"normal", "lognormal", "bimodal"}) {
      int alarms = 0;
      for (int i = 0; i < kPairs; ++i) {
        const Delta d = compare_samples(kTiming, sample_stats(sample(g, shape, n, 0.05)),
                                        sample_stats(sample(g, shape, n, 0.05)), {});
        expect_p_agrees(d);
        alarms += directional(d.verdict);
      }
      const double rate = static_cast<double>(alarms) / kPairs;
      const double se = std::sqrt(kAlpha * (1 - kAlpha) / kPairs);
      EXPECT_LE(rate, kAlpha + 3 * se) << shape << " n=" << n;
      line += fmt::format("  {:8.2f} %", 100 * rate);
    }
    std::cout << line << "\n";
  }
}

TEST(Verdict, PowerOfATenPercentChange) {
  Gen g(0x706f776572);
  std::cout << "power: share of 'regressed' for a slowdown (normal samples, 500 pairs each)\n";
  std::cout << "effect    CV     n=3     n=4     n=5     n=8    n=20\n";
  for (double effect : {0.02, 0.05, 0.10}) {
    for (double cv : {0.01, 0.02, 0.05}) {
      std::string line = fmt::format("{:5.0f} % {:4.0f} %", 100 * effect, 100 * cv);
      for (size_t n : {3, 4, 5, 8, 20}) {
        int right = 0;
        constexpr int kRuns = 500;
        for (int i = 0; i < kRuns; ++i) {
          const Delta d = compare_samples(kTiming, sample_stats(sample(g, "normal", n, cv)),
                                          sample_stats(sample(g, "normal", n, cv, 1 + effect)), {});
          expect_p_agrees(d);
          right += d.verdict == Verdict::kRegressed;
        }
        const double power = static_cast<double>(right) / kRuns;
        if (effect == 0.10 && cv == 0.02 && n == 5) {
          EXPECT_GE(power, 0.95);
        }
        if (n == 3) {
          EXPECT_EQ(right, 0) << "n=3 cannot reach p 0.05";
        }
        line += fmt::format("  {:5.1f}%", 100 * power);
      }
      std::cout << line << "\n";
    }
  }
}

Delta count(const std::string& metric, std::vector<double> a, std::vector<double> b) {
  return compare_samples(metric_info(metric), sample_stats(std::move(a)),
                         sample_stats(std::move(b)), {});
}

TEST(Verdict, CountsExactEqualityJitterAndDeterministicDifferences) {
  EXPECT_EQ(count("faults", {16384, 16384}, {16384, 16384}).verdict, Verdict::kNoChange);
  // Deterministic differences are changes at n=2 and n=3, with no p-value behind them.
  for (size_t n : {2, 3}) {
    const Delta d = count("faults", std::vector<double>(n, 16384), std::vector<double>(n, 1024));
    EXPECT_EQ(d.verdict, Verdict::kImproved) << n;
    EXPECT_EQ(d.basis, VerdictBasis::kExact) << n;
  }
  EXPECT_EQ(count("faults", {1025, 1025}, {1026, 1026}).verdict, Verdict::kRegressed);
  // rss_kb: one folio of jitter in 66 MB (the quickstart A/A) is within one PMD.
  const Delta rss = count("rss_kb", {66296, 66296, 66300}, {66352, 66300, 66300});
  EXPECT_EQ(rss.verdict, Verdict::kNoChange);
  EXPECT_EQ(rss.threshold, 2048);
  EXPECT_EQ(count("rss_kb", {66116, 66116}, {70000, 70000}).verdict, Verdict::kChanged);
  // A server's footprint likewise (postgres, the same knob set twice: shmem_kb within 0.1 %),
  // while the THPs it has are exact.
  EXPECT_EQ(count("shmem_kb", {88180, 88260}, {88420, 88300}).verdict, Verdict::kNoChange);
  EXPECT_EQ(count("server_anon_huge_kb", {22528, 22528}, {20480, 20480}).verdict,
            Verdict::kChanged);
  // Event counters jitter by the agent's own faults: within 0.5 %.
  EXPECT_EQ(count("mthp.64kB.anon_fault_alloc", {1026, 1024, 1025}, {1027, 1024, 1024}).verdict,
            Verdict::kNoChange);
  EXPECT_EQ(count("vmstat.thp_fault_alloc", {32, 32}, {31, 31}).verdict, Verdict::kChanged);
  // From zero: 64 KiB folios appear, with the agent's jitter of a few (quickstart, 4K → 64K).
  const Delta appear = count("mthp.64kB.anon_fault_alloc", {0, 0, 0}, {1027, 1024, 1024});
  EXPECT_EQ(appear.verdict, Verdict::kChanged);
  EXPECT_EQ(appear.basis, VerdictBasis::kExact);
  EXPECT_EQ(count("mthp.64kB.anon_fault_alloc", {1027, 1024, 1024}, {0, 0, 0}).verdict,
            Verdict::kChanged);
  // Per-size folio gauges move by one folio.
  EXPECT_EQ(count("mthp.64kB.split_deferred", {0, 1, 0}, {1, 1, 0}).verdict, Verdict::kNoChange);
  // A jittery count beyond its threshold goes through the rank test.
  const Delta rank = count("faults", {10, 12, 11, 13, 12}, {20, 22, 21, 23, 19});
  EXPECT_EQ(rank.verdict, Verdict::kRegressed);
  EXPECT_EQ(rank.basis, VerdictBasis::kRankTest);
  EXPECT_LE(rank.mann_whitney_p, kAlpha);
  EXPECT_EQ(count("faults", {10, 12, 11}, {20, 22, 9}).verdict, Verdict::kInconclusive);
}

TEST(Verdict, ACountZeroOnBothSidesIsNoChangeNotAHundredPercentDrop) {
  // mthp.64kB.nr_anon of the quickstart against itself: a stray folio in one rep of one side,
  // medians 0 and 0. A ratio to a mean within the threshold of zero means nothing.
  const Delta stray = count("mthp.64kB.nr_anon", {0, 0, 1}, {0, 0, 0});
  EXPECT_EQ(stray.verdict, Verdict::kNoChange);
  EXPECT_EQ(delta_text(stray), "0 % [0 % … 0 %]");
  EXPECT_EQ(delta_text(count("faults", {0, 0, 0}, {0, 0, 0})), "0 % [0 % … 0 %]");
  // From a stray folio to many is still a change, and relative to the baseline.
  const Delta grown = count("mthp.64kB.nr_anon", {0, 0, 1}, {256, 256, 256});
  EXPECT_EQ(grown.verdict, Verdict::kChanged);
  EXPECT_GT(grown.rel_change, 1);
}

// The issue: `user_s -108 % … -79.3 %` and `-100.0 % … +51055 %`. A timing with zeros among its
// reps and a count that drops to zero: intervals of a ratio, never below -100 %; where a side's
// mean is zero, the difference in the metric's unit.
TEST(Verdict, IntervalsOfPositiveMetricsNeverCrossMinusHundredPercent) {
  const Delta user =
      compare_samples(kTiming, sample_stats({0.01, 0.0, 0.03, 0.0, 0.01, 0.02, 0.0, 0.01}),
                      sample_stats({0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 0.0, 0.005}), {});
  ASSERT_TRUE(std::isfinite(user.ci_low));
  EXPECT_GT(user.ci_low, -1);
  EXPECT_GT(user.ci_high, user.rel_change);
  const Delta fewer = count("faults", {10, 30, 5, 1}, {0, 1, 0, 2});
  ASSERT_TRUE(std::isfinite(fewer.ci_low));
  EXPECT_GT(fewer.ci_low, -1);
  const Delta gone = count("faults", {1024, 1030, 1020}, {0, 0, 0});
  EXPECT_TRUE(std::isnan(gone.ci_low));
  EXPECT_EQ(ci_text(gone), "Δ -1037 … -1012");
  EXPECT_EQ(delta_text(gone).find("Δ -"), delta_text(gone).find('[') + 1) << delta_text(gone);
}

// Zero-inflated timings (user_s of short reps) against themselves: the rank test and the ratio's
// interval together still alarm at most 5 % of the time.
TEST(Verdict, AAFalseAlarmRateOfTimingsWithZerosIsAtMostFivePercent) {
  Gen g(0x7a65726f73);
  for (size_t n : {5, 8, 20}) {
    int alarms = 0;
    for (int i = 0; i < kPairs; ++i) {
      std::vector<double> a, b;
      for (size_t k = 0; k < n; ++k) {
        a.push_back(g.uniform() < 0.3 ? 0 : 0.01 * g.draw("lognormal", 0));
        b.push_back(g.uniform() < 0.3 ? 0 : 0.01 * g.draw("lognormal", 0));
      }
      const Delta d = compare_samples(kTiming, sample_stats(a), sample_stats(b), {});
      expect_p_agrees(d);
      if (std::isfinite(d.ci_low)) {
        EXPECT_GT(d.ci_low, -1);
      }
      alarms += directional(d.verdict);
    }
    const double rate = static_cast<double>(alarms) / kPairs;
    EXPECT_LE(rate, kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / kPairs)) << "n=" << n;
  }
}

TEST(Verdict, GuestsBesideMakeATimingInconclusiveUnlessIcount) {
  const SampleStats a = sample_stats({1.00, 1.01, 0.99, 1.00, 1.00});
  const SampleStats b = sample_stats({0.80, 0.81, 0.79, 0.80, 0.80});
  EXPECT_EQ(compare_samples(kTiming, a, b, {}).verdict, Verdict::kImproved);
  const Delta crowded = compare_samples(kTiming, a, b, {}, {.guests_beside = true});
  EXPECT_EQ(crowded.verdict, Verdict::kInconclusive);
  EXPECT_EQ(crowded.note, DeltaNote::kGuestsBeside);
  EXPECT_NE(delta_note(crowded).find("beside"), std::string::npos);
  EXPECT_EQ(compare_samples(kTiming, a, b, {}, {.guests_beside = true, .icount = true}).verdict,
            Verdict::kImproved);
  // Counts do not depend on the host's load.
  EXPECT_EQ(compare_samples(metric_info("faults"), sample_stats({1024, 1024}),
                            sample_stats({16384, 16384}), {}, {.guests_beside = true})
                .verdict,
            Verdict::kRegressed);
}

TEST(Verdict, UnderpoweredNoteSaysWhatRepetitionWouldNeed) {
  // n=3, a clear 10 % change at CV 1 %: the exact test cannot reach 0.05.
  const Delta d = compare_samples(kTiming, sample_stats({1.00, 1.01, 0.99}),
                                  sample_stats({1.10, 1.11, 1.09}), {});
  EXPECT_EQ(d.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(d.mann_whitney_p, 0.1, 1e-12);
  EXPECT_EQ(delta_note(d),
            "n=3/3: p 0.100 cannot reach 0.05; n>=4 (repeat: {max: 4}) would "
            "resolve 2 % at CV 1.0 %");
  // CV 40 %: repetition within 30 reps cannot resolve 2 %.
  const Delta noisy = compare_samples(kTiming, sample_stats({1.0, 1.5, 0.7, 1.2, 0.6}),
                                      sample_stats({1.1, 0.6, 1.4, 0.9, 1.3}), {});
  EXPECT_EQ(noisy.verdict, Verdict::kInconclusive);
  EXPECT_NE(delta_note(noisy).find("30 reps per side cannot resolve 2 %"), std::string::npos)
      << delta_note(noisy);
  EXPECT_EQ(delta_note(noisy).find("need"), std::string::npos);
}

// The two identical quickstart sessions of 2026-12-01 (n=3 each; x86_64 4K and 64K mTHP):
// nothing may come out directional.
TEST(Verdict, IdenticalQuickstartSessionsGiveNoChangeVerdict) {
  const std::vector<std::pair<std::string, std::vector<std::vector<double>>>> rows = {
      {"wall_s",
       {{0.137449835, 0.131226633, 0.131583365}, {0.146244994, 0.136839383, 0.136339595}}},
      {"faults_per_sec",
       {{168268.179, 175377.063, 174991.384}, {158395.137, 168142.135, 172435.543}}},
      {"sys_s", {{0.025314, 0.022323, 0.025649}, {0.029913, 0.02631, 0.025898}}},
      {"user_s", {{0.00055, 0.007888, 0.0}, {0.008351, 0.0, 0.004085}}},
      {"rss_kb", {{66356, 66300, 66352}, {66352, 66300, 66300}}},
      {"vmstat.pgfault", {{16438, 16434, 16434}, {16436, 16432, 16433}}},
      {"mthp.64kB.anon_fault_alloc", {{1026, 1024, 1025}, {1027, 1024, 1024}}},
      {"mthp.64kB.nr_anon_partially_mapped", {{0, 1, 0}, {1, 1, 0}}},
      {"vmstat.nr_anon_pages", {{24, 4, -5}, {23, 5, 0}}},
  };
  for (const auto& [metric, sides] : rows) {
    const Delta d = count(metric, sides[0], sides[1]);
    EXPECT_FALSE(directional(d.verdict)) << metric << ": " << verdict_name(d.verdict);
  }
}

// A thpscale-fragmented guest, as the A/A sessions measured it (docs/machine-state.md): the
// layout each boot leaves decides how many of the 32 PMD faults fall back, so boots differ (by
// up to 13 faults) while the reps of one boot meet the same layout and agree. Modelled as a
// boot's count Binomial(32, p) with p drawn per boot from p0 ± spread ("layout"), or 14 or 15
// at random ("pinned": the arm64 variant whose boots moved by one fault), and `jitter` reps
// that may differ by one fault from their boot's count.
struct Layout {
  std::string name;
  double p0 = 0.5, spread = 0.2;
  bool pinned = false, jitter = false;
};

int64_t boot_count(Gen& g, const Layout& l) {
  if (l.pinned) return g.uniform() < 0.5 ? 14 : 15;
  const double p = std::clamp(l.p0 + l.spread * (2 * g.uniform() - 1), 0.0, 1.0);
  int64_t k = 0;
  for (int i = 0; i < 32; ++i) k += g.uniform() < p;
  return k;
}

// `boots` boots of `reps` reps: per rep (pooled) and per boot (the boots' means).
struct Side {
  std::vector<double> reps, boots;
};
Side fragmented_side(Gen& g, const Layout& l, size_t boots, size_t reps) {
  Side s;
  for (size_t b = 0; b < boots; ++b) {
    const int64_t k = boot_count(g, l);
    double sum = 0;
    for (size_t r = 0; r < reps; ++r) {
      const double x = static_cast<double>(k + (l.jitter && g.uniform() < 0.3 ? 1 : 0));
      s.reps.push_back(x);
      sum += x;
    }
    s.boots.push_back(sum / static_cast<double>(reps));
  }
  return s;
}

// The rule as compare applies it to fragmented guests (boot against boot, no exact verdict)
// keeps the false-alarm rate within 5 %; pooling their reps as a fresh guest's does not.
TEST(Verdict, FragmentedGuestsAAFalseAlarmRateIsAtMostFivePercentBootAgainstBoot) {
  Gen g(0x667261676d);
  const Layout layouts[] = {{"layout ±0.2", 0.5, 0.2},
                            {"layout ±0.05", 0.3, 0.05, false, true},
                            {"pinned 14/15", 0.5, 0, true, false}};
  const MetricInfo info = metric_info("vmstat.thp_fault_fallback");
  std::cout << "A/A false alarms, fragmented guests (" << kPairs
            << " pairs each, 3 reps a boot): per rep / per boot\n";
  std::cout << "boots  layout ±0.2    layout ±0.05   pinned 14/15\n";
  for (size_t boots : {1, 2, 3, 4, 5, 8}) {
    std::string line = fmt::format("{:5}", boots);
    for (const Layout& l : layouts) {
      int rep_alarms = 0, boot_alarms = 0;
      for (int i = 0; i < kPairs; ++i) {
        const Side a = fragmented_side(g, l, boots, 3), b = fragmented_side(g, l, boots, 3);
        rep_alarms += directional(
            compare_samples(info, sample_stats(a.reps), sample_stats(b.reps), {}).verdict);
        const Delta d = compare_samples(info, sample_stats(a.boots), sample_stats(b.boots), {},
                                        RunConditions{false, false, true});
        EXPECT_NE(d.basis, VerdictBasis::kExact);
        expect_p_agrees(d);
        boot_alarms += directional(d.verdict);
      }
      const double se = std::sqrt(kAlpha * (1 - kAlpha) / kPairs);
      const double boot_rate = static_cast<double>(boot_alarms) / kPairs;
      EXPECT_LE(boot_rate, kAlpha + 3 * se) << l.name << " boots=" << boots;
      line += fmt::format("  {:5.1f} / {:4.1f} %", 100.0 * rep_alarms / kPairs, 100 * boot_rate);
    }
    std::cout << line << "\n";
  }
}

// What boot against boot can see: a layout that lets most PMD faults succeed (p0 0.1) against
// one where half fall back (p0 0.5), with the boot spread above.
TEST(Verdict, FragmentedGuestsPowerBootAgainstBoot) {
  Gen g(0x706f7766);
  const MetricInfo info = metric_info("vmstat.thp_fault_fallback");
  const Layout few{"few", 0.1, 0.05}, half{"half", 0.5, 0.2};
  std::cout << "power, fragmented guests (500 pairs): 3 vs 16 of 32 PMD faults falling back\n";
  for (size_t boots : {3, 4, 5, 8}) {
    int found = 0;
    constexpr int kRuns = 500;
    for (int i = 0; i < kRuns; ++i) {
      const Side a = fragmented_side(g, few, boots, 3), b = fragmented_side(g, half, boots, 3);
      found += compare_samples(info, sample_stats(a.boots), sample_stats(b.boots), {},
                               RunConditions{false, false, true})
                   .verdict == Verdict::kChanged;
    }
    const double power = static_cast<double>(found) / kRuns;
    if (boots == 3) {
      EXPECT_EQ(found, 0) << "3 boots a side cannot reach p 0.05";
    }
    if (boots == 5) {
      EXPECT_GE(power, 0.9);
    }
    std::cout << fmt::format("  {} boots a side: {:5.1f} %\n", boots, 100 * power);
  }
}

}  // namespace
}  // namespace foliolab
