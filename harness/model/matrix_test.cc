#include "model/matrix.h"
#include "util/build_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "model/loader.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kTwoByTwo = R"(name: quickstart
kernels:
  - name: "6.12-mthp-vmstat"
    patches: mthp-vmstat
archs: [x86_64, arm64]
machine: {cpus: 1, memory: 1G}
knobs:
  "4K":
    hugepages-64kB/enabled: never
  "64K mTHP":
    hugepages-64kB/enabled: always
workloads:
  - name: fault
    params: {size: 64M, threads: 1, mapping: anon}
repeat: 3
timeout: 300
)";

// kTwoByTwo with every map written in a different key order (and a different timeout,
// which does not decide a run's outcome).
constexpr const char* kTwoByTwoReordered = R"(timeout: 600
repeat: 3
workloads:
  - params: {mapping: anon, threads: 1, size: 64M}
    name: fault
knobs:
  "64K mTHP":
    hugepages-64kB/enabled: always
  "4K":
    hugepages-64kB/enabled: never
machine: {memory: 1024, cpus: 1}
archs: [arm64, x86_64]
kernels:
  - patches: mthp-vmstat
    name: "6.12-mthp-vmstat"
name: quickstart
)";

Experiment load_matrix(const std::string& text) {
  auto exp = parse_experiment(text, "m.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

std::map<std::string, std::string> ids_by_slug(const std::vector<foliolab::Run>& runs) {
  std::map<std::string, std::string> out;
  for (const foliolab::Run& run : runs) out[run.id.substr(0, run.id.size() - 9)] = run.id;
  return out;
}

TEST(MatrixTest, SizeAndOrder) {
  const Experiment exp = load_matrix(R"(name: q
kernels: [{name: k1}, {name: k2}]
archs: [x86_64, arm64]
knobs: {s1: {}, s2: {}, s3: {}}
workloads: [{name: w1}, {name: w2}]
)");
  const std::vector<foliolab::Run> runs = expand(exp);
  ASSERT_EQ(runs.size(), 2u * 2 * 3 * 2);
  size_t i = 0;
  for (size_t k = 0; k < 2; ++k) {
    for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
      for (size_t s = 0; s < 3; ++s) {
        for (size_t w = 0; w < 2; ++w, ++i) {
          EXPECT_EQ(runs[i].kernel, k) << i;
          EXPECT_EQ(runs[i].arch, arch) << i;
          EXPECT_EQ(runs[i].knob_set, s) << i;
          EXPECT_EQ(runs[i].workload, w) << i;
        }
      }
    }
  }
}

TEST(MatrixTest, IdShape) {
  const std::vector<foliolab::Run> runs = expand(load_matrix(kTwoByTwo));
  ASSERT_EQ(runs.size(), 4u);
  const std::regex shape(R"([a-z0-9._-]+\.[0-9a-f]{8})");
  for (const foliolab::Run& run : runs) EXPECT_TRUE(std::regex_match(run.id, shape)) << run.id;
  EXPECT_TRUE(runs[0].id.starts_with("x86_64.6.12-mthp-vmstat.4k.fault.")) << runs[0].id;
  EXPECT_TRUE(runs[1].id.starts_with("x86_64.6.12-mthp-vmstat.64k-mthp.fault.")) << runs[1].id;
  EXPECT_TRUE(runs[2].id.starts_with("arm64.6.12-mthp-vmstat.4k.fault.")) << runs[2].id;
}

TEST(MatrixTest, SameContentSameId) {
  const std::vector<foliolab::Run> a = expand(load_matrix(kTwoByTwo));
  const std::vector<foliolab::Run> b = expand(load_matrix(kTwoByTwo));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
}

TEST(MatrixTest, ReorderedYamlKeepsIds) {
  const auto a = ids_by_slug(expand(load_matrix(kTwoByTwo)));
  const auto b = ids_by_slug(expand(load_matrix(kTwoByTwoReordered)));
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(a, b);
}

TEST(MatrixTest, ChangedKnobValueChangesOnlyThatRun) {
  std::string text = kTwoByTwo;
  const std::string from = "hugepages-64kB/enabled: always";
  text.replace(text.find(from), from.size(), "hugepages-64kB/enabled: madvise");
  const auto a = ids_by_slug(expand(load_matrix(kTwoByTwo)));
  const auto b = ids_by_slug(expand(load_matrix(text)));
  for (const auto& [slug, id] : a) {
    if (slug.find("64k-mthp") != std::string::npos) {
      EXPECT_NE(id, b.at(slug));
    } else {
      EXPECT_EQ(id, b.at(slug));
    }
  }
}

TEST(MatrixTest, OutcomeRelevantChangesChangeIds) {
  const auto base = ids_by_slug(expand(load_matrix(kTwoByTwo)));
  auto changed = [&](const std::string& from, const std::string& to) {
    std::string text = kTwoByTwo;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const auto ids = ids_by_slug(expand(load_matrix(text)));
    size_t differ = 0;
    for (const auto& [slug, id] : base) differ += ids.count(slug) && ids.at(slug) != id;
    return differ;
  };
  EXPECT_EQ(changed("repeat: 3", "repeat: 4"), 4u);
  EXPECT_EQ(changed("repeat: 3", "repeat: {min: 4, max: 30, ci: 2%}"), 4u);
  EXPECT_EQ(changed("repeat: 3", "repeat: 3\nwarmup: 1"), 4u);
  EXPECT_EQ(changed("memory: 1G", "memory: 2G"), 4u);
  EXPECT_EQ(changed("size: 64M", "size: 128M"), 4u);
  EXPECT_EQ(changed("patches: mthp-vmstat", "patches: other"), 4u);
  EXPECT_EQ(changed("patches: mthp-vmstat", "patches: mthp-vmstat\n    cmdline: quiet"), 4u);
  EXPECT_EQ(changed("hugepages-64kB/enabled: never",
                    "hugepages-64kB/enabled: never\n    sysctl: {vm/overcommit_memory: 1}"),
            2u);
  // Not part of a run's identity.
  EXPECT_EQ(changed("timeout: 300", "timeout: 900"), 0u);
  EXPECT_EQ(changed("name: quickstart", "name: other"), 0u);
}

TEST(MatrixTest, IdsUniqueEvenWhenSlugsCollide) {
  // "64K mTHP" and "64k-mthp" slugify alike; the content hash keeps the ids apart.
  const std::vector<foliolab::Run> runs = expand(load_matrix(R"(name: q
kernels: [{name: k1}, {name: k2}]
archs: [x86_64, arm64]
knobs:
  "64K mTHP": {hugepages-64kB/enabled: always}
  "64k-mthp": {hugepages-64kB/enabled: always}
  "a": {}
workloads: [{name: w1}, {name: w1, label: w1-again}, {name: w2}]
)"));
  std::set<std::string> ids;
  for (const foliolab::Run& run : runs) ids.insert(run.id);
  EXPECT_EQ(ids.size(), runs.size());
  EXPECT_EQ(runs.size(), 2u * 2 * 3 * 3);
}

TEST(MatrixTest, FormatPlanListsEveryRun) {
  const Experiment exp = load_matrix(kTwoByTwo);
  const std::vector<foliolab::Run> runs = expand(exp);
  const std::string plan = format_plan(exp, runs);
  EXPECT_TRUE(plan.starts_with(
      "quickstart: 1 kernel × 2 archs × 2 knob sets × 1 workload = 4 runs, 3 repetitions "
      "each\n"))
      << plan;
  for (const foliolab::Run& run : runs) EXPECT_THAT(plan, HasSubstr(run.id));
  EXPECT_THAT(plan, HasSubstr("64K mTHP"));
  EXPECT_THAT(plan, HasSubstr("size=64M threads=1 mapping=anon"));
  EXPECT_EQ(std::count(plan.begin(), plan.end(), '\n'), 2 + 4);  // header, table head, rows
}

// Each run's machine state stands beside its id: swap, zswap, cgroup, then the prepare steps
// (the experiment's, then its knob set's); a run without any is "fresh".
TEST(MatrixTest, FormatPlanShowsEachRunsMachineState) {
  const Experiment exp = load_matrix(R"(name: s
kernels: [{name: k}]
archs: [x86_64]
machine: {memory: 512M, swap: {type: zram, size: 256M, compressor: lz4}, zswap: {enabled: true}}
cgroup: {memory.max: 32M, memory.swap.max: max}
prepare: [{reclaim: 16M}]
knobs:
  plain: {enabled: always}
  frag:
    enabled: always
    prepare: [{fragment: {method: thpscale, seed: 3, pin: true}}, {fragment: {order: 4, unusable: 0.9}}]
workloads: [{name: fault}]
)");
  const std::vector<foliolab::Run> runs = expand(exp);
  ASSERT_EQ(runs.size(), 2u);
  const std::string common = "swap zram 256M lz4, zswap, cgroup memory.max=32M memory.swap.max=max";
  EXPECT_EQ(machine_state_text(exp, runs[0]), common + ", reclaim 16M");
  EXPECT_EQ(
      machine_state_text(exp, runs[1]),
      common + ", reclaim 16M, fragment thpscale seed 3 pinned, fragment order 4 unusable 0.9");
  const std::string plan = format_plan(exp, runs);
  std::istringstream lines(plan);
  std::string line;
  std::getline(lines, line);  // the counts
  std::getline(lines, line);
  EXPECT_TRUE(line.starts_with("RUN ID")) << line;
  EXPECT_THAT(line, HasSubstr("MACHINE STATE"));
  for (const foliolab::Run& run : runs) {
    std::getline(lines, line);
    EXPECT_TRUE(line.starts_with(run.id + "  ")) << line;
    EXPECT_THAT(line, HasSubstr(machine_state_text(exp, run)));
  }
  // A fresh experiment's plan has no such column.
  EXPECT_THAT(format_plan(load_matrix(kTwoByTwo), expand(load_matrix(kTwoByTwo))),
              Not(HasSubstr("MACHINE STATE")));
  Experiment fresh = load_matrix(kTwoByTwo);
  EXPECT_EQ(machine_state_text(fresh, expand(fresh)[0]), "fresh");
}

TEST(MatrixTest, QuickstartExampleExpandsToFourRuns) {
  auto exp = load_experiment(std::string(foliolab::source_dir()) + "/experiments/quickstart.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(expand(*exp).size(), 4u);
  // Same content as kTwoByTwo except timeout and description: same ids.
  EXPECT_EQ(ids_by_slug(expand(*exp)), ids_by_slug(expand(load_matrix(kTwoByTwo))));
}

// ---- filters ----

constexpr const char* kFiltered = R"(name: f
kernels:
  - name: k
  - name: k64
    config: [arm64-64k]
    archs: [arm64]
archs: [x86_64, arm64]
knobs: {"4K": {}, "64K": {}}
workloads: [{name: fault}, {name: fault, label: shmem}]
)";

std::vector<std::string> slugs(const std::vector<foliolab::Run>& runs) {
  std::vector<std::string> out;
  for (const auto& run : runs) out.push_back(run.id.substr(0, run.id.size() - 9));
  return out;
}

TEST(MatrixFilterTest, KernelArchsRestrictAKernel) {
  const Experiment exp = load_matrix(kFiltered);
  const auto runs = expand(exp);
  EXPECT_EQ(runs.size(), 12u);  // k: 2 archs × 2 × 2; k64: arm64 only × 2 × 2
  for (const auto& run : runs) {
    if (exp.kernels[run.kernel].name == "k64") {
      EXPECT_EQ(run.arch, Arch::kArm64);
    }
  }
  EXPECT_EQ(full_product(exp), 16u);
}

TEST(MatrixFilterTest, ExcludeDropsRunsMatchingEveryGivenKey) {
  const std::string text = std::string(kFiltered) +
                           "exclude:\n  - {arch: x86_64, knobs: \"64K\"}\n  - {workload: shmem, "
                           "kernel: k64}\n";
  const Experiment exp = load_matrix(text);
  const auto runs = expand(exp);
  EXPECT_THAT(slugs(runs),
              ::testing::ElementsAre("x86_64.k.4k.fault", "x86_64.k.4k.shmem", "arm64.k.4k.fault",
                                     "arm64.k.4k.shmem", "arm64.k.64k.fault", "arm64.k.64k.shmem",
                                     "arm64.k64.4k.fault", "arm64.k64.64k.fault"));
  for (const auto& run : runs) EXPECT_FALSE(is_excluded(exp, run));
}

TEST(MatrixFilterTest, FiltersKeepIdsOfRemainingRuns) {
  const Experiment all = load_matrix(R"(name: f
kernels: [{name: k}]
archs: [x86_64, arm64]
knobs: {"4K": {}, "64K": {}}
workloads: [{name: fault}]
)");
  const Experiment some = load_matrix(R"(name: f
kernels: [{name: k, archs: [arm64]}]
archs: [x86_64, arm64]
knobs: {"4K": {}, "64K": {}}
workloads: [{name: fault}]
exclude: [{knobs: "4K"}]
)");
  const auto full = ids_by_slug(expand(all));
  const auto kept = expand(some);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id, full.at("arm64.k.64k.fault"));
}

TEST(MatrixFilterTest, FormatPlanCountsExcluded) {
  const Experiment exp = load_matrix(std::string(kFiltered) + "exclude: [{knobs: \"64K\"}]\n");
  const std::string plan = format_plan(exp, expand(exp));
  EXPECT_THAT(plan, HasSubstr("f: 2 kernels × 2 archs × 2 knob sets × 2 workloads = 6 runs (10 "
                              "excluded), 3 repetitions each\n"));
  const Experiment plain = load_matrix(kTwoByTwo);
  EXPECT_THAT(format_plan(plain, expand(plain)), HasSubstr("= 4 runs, 3 repetitions"));
}

// machine.image is part of a run's identity only when set: the runs of every experiment written
// before it keep their ids (and so their stored results and baselines).
TEST(MatrixTest, MachineImageChangesIdsAndWithoutItTheIdsStay) {
  Experiment exp = load_matrix(kTwoByTwo);
  const auto before = ids_by_slug(expand(exp));
  ASSERT_EQ(before.size(), 4u);
  exp.machine.image = "debian-redis";
  const auto redis = ids_by_slug(expand(exp));
  exp.machine.image = "debian-postgres";
  const auto postgres = ids_by_slug(expand(exp));
  ASSERT_EQ(redis.size(), 4u);
  for (const auto& [slug, id] : before) {
    EXPECT_NE(redis.at(slug), id) << slug;
    EXPECT_NE(postgres.at(slug), redis.at(slug)) << slug;
  }
  exp.machine.image.clear();
  EXPECT_EQ(ids_by_slug(expand(exp)), before);

  auto changed = [&](const std::string& to) {
    std::string text = kTwoByTwo;
    const std::string from = "machine: {cpus: 1, memory: 1G}";
    text.replace(text.find(from), from.size(), to);
    const auto ids = ids_by_slug(expand(load_matrix(text)));
    size_t differ = 0;
    for (const auto& [slug, id] : before) differ += ids.at(slug) != id;
    return differ;
  };
  EXPECT_EQ(changed("machine: {cpus: 1, memory: 1G, image: debian-redis}"), 4u);
  EXPECT_EQ(changed("machine: {cpus: 1, memory: 1G, image: initramfs}"), 0u);
}

// The ids kTwoByTwo's runs had before machine.image existed (issue 20): a change here orphans
// every stored result of every experiment.
TEST(MatrixTest, IdsOfAnExperimentWithoutAnImageAreThoseItHadBefore) {
  std::vector<std::string> ids;
  for (const foliolab::Run& run : expand(load_matrix(kTwoByTwo))) ids.push_back(run.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"x86_64.6.12-mthp-vmstat.4k.fault.df075a3e",
                                           "x86_64.6.12-mthp-vmstat.64k-mthp.fault.304198e9",
                                           "arm64.6.12-mthp-vmstat.4k.fault.18e5633b",
                                           "arm64.6.12-mthp-vmstat.64k-mthp.fault.8be1d9d4"}));
}

}  // namespace
}  // namespace foliolab
