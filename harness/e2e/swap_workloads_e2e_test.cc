// End-to-end tests of the workloads that swap and collapse (issue 29, item 4) on the quickstart's
// kernels, both arches, run as a user runs foliolab: tools/mm/thp_swap_allocator_test built from
// the run's tree and run unmodified (its recipe, a 64M zram: 64 KiB folios swapped out whole, no
// fallback on 6.12; a zram smaller than its 60 MiB region: fallbacks it must report), `swap`
// writing 64M in its own 32M cgroup and reading it back, and `collapse` turning 32M of base pages
// into PMD THPs with MADV_COLLAPSE.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "testing/e2e_session.h"

namespace foliolab {
namespace {

constexpr const char* kSwapKernel =
    "kernels:\n  - name: 6.12-mthp-vmstat\n    patches: mthp-vmstat\narchs: [x86_64, arm64]\n";
constexpr const char* k64K =
    "knobs:\n  \"64K\": {hugepages-2048kB/enabled: never, hugepages-64kB/enabled: always}\n";

// The program's recipe (64M zram, 64K always, PMD never) with -a: 100 rounds, 64 KiB folios
// swapped out whole and no fallback (6.12's swap-cluster allocator); in the same guest, swap
// and collapse do what they claim and verify their data.
TEST(E2ESwapWorkloads, SwapAllocatorSwapAndCollapseOnBothArches) {
  ScopedTestDir dir("swap-workloads");
  std::map<std::string, std::string> raw;
  const auto records = run_e2e_experiment(dir, "e2e-swapwl",
                                          fmt::format(R"(name: e2e-swapwl
{}machine: {{cpus: 1, memory: 512M, swap: {{type: zram, size: 64M, compressor: lzo}}}}
{}workloads:
  - {{name: thp-swap-allocator, params: {{aligned_swapin: true, timeout: 600}}}}
  - {{name: swap, params: {{size: 64M, memory_max: 32M}}}}
  - {{name: collapse, params: {{size: 32M}}}}
repeat: 2
timeout: 1500
expect:
  - {{runs: {{workload: thp-swap-allocator}}, metric: rounds, "==": 100}}
  - {{runs: {{workload: thp-swap-allocator}}, metric: swpout, stat: min, ">": 0}}
  - {{runs: {{workload: thp-swap-allocator}}, metric: fallback_pct_mean, "<": 10}}
  - {{runs: {{workload: swap}}, metric: swapped_fraction, stat: min, ">": 0.4}}
  - {{runs: {{workload: swap}}, metric: mthp.64kB.swpout, stat: min, ">": 0}}
  - {{runs: {{workload: collapse}}, metric: collapsed, stat: min, "==": 16}}
)",
                                                      kSwapKernel, k64K),
                                          &raw);
  ASSERT_EQ(records.size(), 6u);
  for (const RunRecord& r : records) {
    ASSERT_EQ(r.status, "ok") << r.id.run_id << ": " << r.reason;
    const std::string& name = r.id.workload.name;
    if (name == "thp-swap-allocator") {
      // Its own lines, as the workload passed them on: the program ran to its last round.
      EXPECT_NE(raw[r.id.run_id].find("| Iteration 100: swpout"), std::string::npos);
    }
    for (const Repetition& rep : r.reps) {
      const auto& m = rep.metrics;
      if (name == "thp-swap-allocator") {
        EXPECT_EQ(m.at("swpout_fallback"), 0) << r.id.arch;
      } else if (name == "swap") {
        EXPECT_EQ(m.at("checksum_ok"), 1);
        EXPECT_GT(m.at("swapin_kb"), 0) << r.id.arch;  // read back from zram
        EXPECT_GT(m.at("swapout_mib_s"), 0);
        EXPECT_EQ(m.at("limit_kb"), 32 * 1024);
      } else {
        EXPECT_EQ(m.at("madvise_ok"), 16) << r.id.arch;
        EXPECT_EQ(m.at("anon_huge_kb"), 32 * 1024) << r.id.arch;
      }
    }
  }
}

// A zram smaller than the program's 60 MiB region: once it is full no swap cluster is left for
// a 64 KiB folio, and the rounds must say so (fallbacks counted, not 0 %).
TEST(E2ESwapWorkloads, SwapAllocatorReportsFallbacksWhenTheZramIsTooSmall) {
  ScopedTestDir dir("swap-allocator-small");
  const auto records = run_e2e_experiment(dir, "e2e-small-zram",
                                          fmt::format(R"(name: e2e-small-zram
{}machine: {{cpus: 1, memory: 512M, swap: {{type: zram, size: 32M, compressor: lzo}}}}
{}workloads:
  - {{name: thp-swap-allocator, params: {{timeout: 600}}}}
repeat: 2
timeout: 1500
expect:
  - {{metric: rounds, "==": 100}}
  - {{metric: swpout_fallback, stat: min, ">": 0}}
)",
                                                      kSwapKernel, k64K));
  ASSERT_EQ(records.size(), 2u);
  for (const RunRecord& r : records) {
    ASSERT_EQ(r.status, "ok") << r.reason;
    for (const Repetition& rep : r.reps) {
      EXPECT_GT(rep.metrics.at("fallback_pct"), 0) << r.id.arch;
      EXPECT_EQ(rep.metrics.at("swap_kb"), 32 * 1024 - 4) << r.id.arch;  // less the swap header
      EXPECT_GT(rep.metrics.at("fallback_pct_mean"), 10) << r.id.arch;
    }
  }
}

}  // namespace
}  // namespace foliolab
