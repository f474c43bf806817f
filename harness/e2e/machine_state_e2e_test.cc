// End-to-end tests of the machine's state (issue 29) on the quickstart's kernels, both arches, run
// as a user runs foliolab (`cd dir && foliolab run x.yaml`): a guest fragmented by thpscale meets
// THP fallbacks a fresh one does not, with the unusable index recorded before and after; a fault
// workload under a 32M memory cgroup swaps 64 KiB folios out to zram (and to a disk swap), with a
// monitor sampling the swap-outs during each rep; page-cache churn (thpchallenge's background)
// makes PMD faults fall back too.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "testing/e2e_session.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

size_t files_named(const fs::path& root, const std::string& name) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) n += e.path().filename() == name;
  return n;
}

constexpr const char* kKernel =
    "kernels:\n  - name: 6.12-mthp-vmstat\n    patches: mthp-vmstat\narchs: [x86_64, arm64]\n";

// THP always, defrag never, a 64M anonymous fault: on a fresh guest every PMD fault gets a THP;
// after thpscale (every 2 MiB block half used, half its holes refilled by a file) none can. Both
// in one experiment, the fragmentation a knob set's own prepare step.
TEST(E2EMachineState, ThpscaleFragmentationMakesThpFaultsFallBackOnBothArches) {
  ScopedTestDir dir("machine-fragment");
  const auto records = run_e2e_experiment(dir, "e2e-fragment",
                                          fmt::format(R"(name: e2e-fragment
{}machine: {{cpus: 1, memory: 512M}}
knobs:
  fresh: {{enabled: always, defrag: never}}
  thpscale:
    enabled: always
    defrag: never
    prepare: [{{fragment: {{method: thpscale}}}}]
workloads:
  - {{name: fault, params: {{size: 64M}}}}
repeat: 2
timeout: 900
expect:
  - {{runs: {{knobs: fresh}}, metric: vmstat.thp_fault_fallback, "==": 0}}
  - {{runs: {{knobs: fresh}}, metric: vmstat.thp_fault_alloc, ">=": 30}}
  - {{runs: {{knobs: thpscale}}, metric: vmstat.thp_fault_fallback, ">": 0}}
  - {{runs: {{knobs: thpscale}}, metric: state.before.unusable.all.9, ">=": 500}}
)",
                                                      kKernel));
  ASSERT_EQ(records.size(), 4u);
  for (const RunRecord& r : records) {
    ASSERT_EQ(r.status, "ok") << r.reason;
    if (r.id.knob_set.name == "fresh") {
      EXPECT_TRUE(r.prepared.empty());
      continue;
    }
    ASSERT_EQ(r.prepared.size(), 1u);
    const PreparedStep& p = r.prepared[0];
    EXPECT_EQ(p.step, "fragment");
    ASSERT_TRUE(p.find("unusable_before") && p.find("unusable_after"));
    EXPECT_LT(std::stoi(*p.find("unusable_before")), 500) << r.id.arch;  // a fresh guest first
    // most free memory unusable for a THP (0.78 arm64, 0.83 x86_64 measured)
    EXPECT_GE(std::stoi(*p.find("unusable_after")), 500) << r.id.arch;
    for (const Repetition& rep : r.reps) {
      EXPECT_TRUE(rep.state_before.contains("unusable.all.9")) << r.id.arch;
      EXPECT_TRUE(rep.state_after.contains("unusable.all.9")) << r.id.arch;
    }
    // prepare: runs before the first rep of a boot; the second meets what the first left when
    // its 64M was freed, and has been seen with no fallback at all (x86_64, 2026-12-03 CI).
    ASSERT_FALSE(r.reps.empty());
    EXPECT_LT(r.reps.front().metrics.at("success.thp"), 1.0) << r.id.arch;
  }
}

// 64K mTHP always, swap on a 256M zram, the workload in a 32M memory cgroup: a 64M fault must
// swap some of its 64 KiB folios out whole (mTHP swap-out, Linux 6.10). The monitor samples the
// swap-outs during each rep; the disk swap (a virtio-blk file of this run's) does the same.
TEST(E2EMachineState, A32MCgroupSwaps64KFoliosToZramAndDiskOnBothArches) {
  ScopedTestDir dir("machine-swap");
  const std::string common = fmt::format(
      "{}knobs:\n  \"64K mTHP\": {{hugepages-64kB/enabled: always}}\n"
      "workloads:\n  - {{name: fault, params: {{size: 64M}}}}\n"
      "cgroup: {{memory.max: 32M}}\n"
      "monitor: {{period: 50ms, counters: [mthp.64kB.swpout, memcg.current]}}\n"
      "repeat: 2\ntimeout: 900\n"
      "expect:\n  - {{metric: mthp.64kB.swpout, \">\": 0}}\n"
      "  - {{metric: state.after.swap.total_kb, \">\": 0}}\n",
      kKernel);
  const auto zram =
      run_e2e_experiment(dir, "e2e-zram",
                         "name: e2e-zram\nmachine: {cpus: 1, memory: 512M, swap: {type: zram, "
                         "size: 256M}}\n" +
                             common);
  ASSERT_EQ(zram.size(), 2u);
  for (const RunRecord& r : zram) {
    ASSERT_EQ(r.status, "ok") << r.reason;
    ASSERT_GE(r.prepared.size(), 2u);  // swap, cgroup
    EXPECT_EQ(r.prepared[0].step, "swap");
    const MonitorSeries& m = r.reps.at(0).monitor;
    ASSERT_EQ(m.counters.size(), 2u) << r.id.arch;
    EXPECT_GE(m.t_ms.size(), 2u) << r.id.arch;  // the start and the end at least
    EXPECT_GT(m.values[0].back(), m.values[0].front()) << r.id.arch;  // swap-outs during the rep
  }
  const auto disk =
      run_e2e_experiment(dir, "e2e-disk",
                         "name: e2e-disk\nmachine: {cpus: 1, memory: 512M, swap: {type: disk, "
                         "size: 256M}}\n" +
                             common);
  ASSERT_EQ(disk.size(), 2u);
  for (const RunRecord& r : disk) EXPECT_EQ(r.status, "ok") << r.reason;
  EXPECT_EQ(files_named(dir / "results", "swap.img"), 0u);  // each run's, removed after its boot
}

// mmtests' thpchallenge background in small: 768M of 64 KiB files (1.5 x the 512M guest) written
// to the run's ext4 scratch disk and read at random, then read on through the reps. Page cache
// fills memory and PMD faults fall back under defrag never (24-26 of 32 measured on both arches;
// a fresh guest's are 0, above).
TEST(E2EMachineState, PageCacheChurnMakesThpFaultsFallBackOnBothArches) {
  ScopedTestDir dir("machine-churn");
  const auto records = run_e2e_experiment(dir, "e2e-churn",
                                          fmt::format(R"(name: e2e-churn
{}machine: {{cpus: 2, memory: 512M}}
knobs:
  churn:
    enabled: always
    defrag: never
    prepare: [{{fragment: {{method: churn, background: true}}}}]
workloads:
  - {{name: fault, params: {{size: 64M}}}}
repeat: 2
timeout: 900
expect:
  - {{metric: fallback.thp, ">": 0}}
)",
                                                      kKernel));
  ASSERT_EQ(records.size(), 2u);
  for (const RunRecord& r : records) {
    ASSERT_EQ(r.status, "ok") << r.reason;
    ASSERT_EQ(r.prepared.size(), 1u);
    const PreparedStep& p = r.prepared[0];
    ASSERT_TRUE(p.find("method") && p.find("files") && p.find("cached_kb") && p.find("slab_kb"));
    EXPECT_EQ(*p.find("method"), "churn");
    EXPECT_EQ(*p.find("files"), "12288") << r.id.arch;  // 768M of 64K files
    EXPECT_EQ(*p.find("background"), "1");
    EXPECT_GT(std::stoll(*p.find("cached_kb")), 256 * 1024) << r.id.arch;  // half the guest
    EXPECT_GT(std::stoll(*p.find("slab_kb")), std::stoll(*p.find("slab_kb_before")))
        << r.id.arch;  // the files' inodes and dentries
    for (const Repetition& rep : r.reps) {
      EXPECT_GT(rep.metrics.at("fallback.thp"), 0) << r.id.arch;  // the reads go on
    }
  }
  EXPECT_EQ(files_named(dir / "results", "scratch.img"), 0u);  // removed after each boot
}

}  // namespace
}  // namespace foliolab
