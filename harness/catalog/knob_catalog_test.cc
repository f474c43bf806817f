#include "catalog/knob_catalog.h"
#include "util/build_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const KernelFacts k4{"6.12", 4};
const KernelFacts k64{"6.12", 64};

std::string problem(const std::string& path, const std::string& value, const KernelFacts& f) {
  const Result<void> st = check_knob(path, value, f);
  return st.ok() ? "<ok>" : st.error().message;
}

TEST(KnobCatalogTest, SizesWith4KPages) {
  // THP_ORDERS_ALL_ANON: orders 2..9; THP_ORDERS_ALL_FILE_DEFAULT: 1..MAX_PAGECACHE_ORDER (9).
  EXPECT_THAT(anon_mthp_sizes_kb(k4), ElementsAre(16, 32, 64, 128, 256, 512, 1024, 2048));
  EXPECT_THAT(shmem_mthp_sizes_kb(k4), ElementsAre(8, 16, 32, 64, 128, 256, 512, 1024, 2048));
}

TEST(KnobCatalogTest, SizesWith64KPages) {
  // PMD order 13 (512M); MAX_PAGECACHE_ORDER = min(11, 13) = 11 (128M).
  const auto anon = anon_mthp_sizes_kb(k64);
  ASSERT_EQ(anon.size(), 12u);
  EXPECT_EQ(anon.front(), 256u);
  EXPECT_EQ(anon.back(), 524288u);
  const auto shmem = shmem_mthp_sizes_kb(k64);
  ASSERT_EQ(shmem.size(), 11u);
  EXPECT_EQ(shmem.front(), 128u);
  EXPECT_EQ(shmem.back(), 131072u);
}

TEST(KnobCatalogTest, TopLevelFiles) {
  for (const char* v : {"always", "madvise", "never"}) EXPECT_EQ(problem("enabled", v, k4), "<ok>");
  EXPECT_EQ(problem("enabled", "inherit", k4),
            "'inherit' is not offered by Linux 6.12 (always madvise never)");
  for (const char* v : {"always", "defer", "defer+madvise", "madvise", "never"}) {
    EXPECT_EQ(problem("defrag", v, k4), "<ok>");
  }
  EXPECT_EQ(problem("defrag", "defer+madvice", k4),
            "'defer+madvice' is not offered by Linux 6.12 (always defer defer+madvise madvise "
            "never); did you mean 'defer+madvise'?");
  EXPECT_EQ(problem("use_zero_page", "1", k4), "<ok>");
  EXPECT_EQ(problem("use_zero_page", "2", k4), "'2' is not accepted by Linux 6.12 (0 or 1)");
  for (const char* v : {"1", "0", "y", "off"})
    EXPECT_EQ(problem("shrink_underused", v, k4), "<ok>");
  EXPECT_EQ(problem("shrink_underused", "maybe", k4),
            "'maybe' is not a boolean for Linux 6.12 (0 or 1)");
  EXPECT_EQ(problem("hpage_pmd_size", "4096", k4), "read-only in Linux 6.12; it cannot be set");
  for (const char* v : {"always", "within_size", "advise", "never", "deny", "force"}) {
    EXPECT_EQ(problem("shmem_enabled", v, k4), "<ok>");
  }
  EXPECT_EQ(problem("shmem_enabled", "inherit", k4),
            "'inherit' is not offered by Linux 6.12 (always within_size advise never deny "
            "force)");
  EXPECT_EQ(problem("enabeld", "always", k4),
            "Linux 6.12 has no transparent_hugepage/enabeld; did you mean 'enabled'?");
}

TEST(KnobCatalogTest, Khugepaged) {
  EXPECT_EQ(problem("khugepaged/defrag", "0", k4), "<ok>");
  EXPECT_EQ(problem("khugepaged/max_ptes_none", "511", k4), "<ok>");
  EXPECT_EQ(problem("khugepaged/max_ptes_none", "512", k4),
            "'512' is not accepted by Linux 6.12 with 4K pages (an integer in 0..511)");
  EXPECT_EQ(problem("khugepaged/max_ptes_none", "8191", k64), "<ok>");
  EXPECT_EQ(problem("khugepaged/max_ptes_swap", "-1", k4),
            "'-1' is not accepted by Linux 6.12 with 4K pages (an integer in 0..511)");
  EXPECT_EQ(problem("khugepaged/max_ptes_shared", "+256", k4), "<ok>");
  EXPECT_EQ(problem("khugepaged/pages_to_scan", "4096", k4), "<ok>");
  EXPECT_EQ(problem("khugepaged/pages_to_scan", "0", k4),
            "'0' is not accepted by Linux 6.12 (an integer in 1..4294967295)");
  EXPECT_EQ(problem("khugepaged/scan_sleep_millisecs", "0", k4), "<ok>");
  EXPECT_EQ(problem("khugepaged/alloc_sleep_millisecs", "4294967296", k4),
            "'4294967296' is not accepted by Linux 6.12 (an integer in 0..4294967295)");
  EXPECT_EQ(problem("khugepaged/scan_sleep_millisecs", "10ms", k4),
            "'10ms' is not accepted by Linux 6.12 (an integer in 0..4294967295)");
  EXPECT_EQ(problem("khugepaged/full_scans", "0", k4), "read-only in Linux 6.12; it cannot be set");
  EXPECT_EQ(problem("khugepaged/pages_collapsed", "0", k4),
            "read-only in Linux 6.12; it cannot be set");
}

TEST(KnobCatalogTest, PerSizeWith4KPages) {
  EXPECT_EQ(problem("hugepages-64kB/enabled", "always", k4), "<ok>");
  EXPECT_EQ(problem("hugepages-2048kB/enabled", "inherit", k4), "<ok>");
  EXPECT_EQ(problem("hugepages-16kB/enabled", "madvise", k4), "<ok>");
  EXPECT_EQ(problem("hugepages-64kB/enabled", "alway", k4),
            "'alway' is not offered by Linux 6.12 (always inherit madvise never); did you mean "
            "'always'?");
  EXPECT_EQ(problem("hugepages-64kB/shmem_enabled", "within_size", k4), "<ok>");
  EXPECT_EQ(problem("hugepages-64kB/shmem_enabled", "madvise", k4),
            "'madvise' is not offered by Linux 6.12 (always inherit within_size advise never); "
            "did you mean 'advise'?");
  EXPECT_EQ(problem("hugepages-64kB/shmem_enabled", "force", k4),
            "'force' is not offered by Linux 6.12 (always inherit within_size advise never)");
  // Order 1 is shmem only: hugepages-8kB has shmem_enabled but no enabled.
  EXPECT_EQ(problem("hugepages-8kB/shmem_enabled", "always", k4), "<ok>");
  EXPECT_EQ(problem("hugepages-8kB/enabled", "always", k4),
            "Linux 6.12 has no hugepages-8kB/enabled (hugepages-8kB/ offers: shmem_enabled); "
            "order-1 folios are used for shmem only");
  EXPECT_EQ(problem("hugepages-4kB/enabled", "always", k4),
            "Linux 6.12 with 4K pages has no hugepages-4kB/ (anonymous mTHP sizes: "
            "16kB..2048kB, shmem: 8kB..2048kB)");
  EXPECT_EQ(problem("hugepages-64kB/enabeld", "always", k4),
            "Linux 6.12 has no hugepages-64kB/enabeld (hugepages-64kB/ offers: enabled "
            "shmem_enabled); did you mean 'hugepages-64kB/enabled'?");
  EXPECT_EQ(problem("hugepages-64kB/stats/anon_fault_alloc", "0", k4),
            "read-only in Linux 6.12; it cannot be set");
}

TEST(KnobCatalogTest, PerSizeWith64KPages) {
  EXPECT_EQ(problem("hugepages-64kB/enabled", "always", k64),
            "Linux 6.12 with 64K pages has no hugepages-64kB/ (anonymous mTHP sizes: "
            "256kB..524288kB, shmem: 128kB..131072kB)");
  EXPECT_EQ(problem("hugepages-256kB/enabled", "always", k64), "<ok>");
  EXPECT_EQ(problem("hugepages-524288kB/enabled", "inherit", k64), "<ok>");
  // 512M (the PMD size) is above MAX_PAGECACHE_ORDER: anonymous only.
  EXPECT_THAT(problem("hugepages-524288kB/shmem_enabled", "inherit", k64),
              HasSubstr("has no hugepages-524288kB/shmem_enabled"));
  EXPECT_EQ(problem("hugepages-131072kB/shmem_enabled", "always", k64), "<ok>");
  EXPECT_EQ(problem("hugepages-128kB/shmem_enabled", "always", k64), "<ok>");
  EXPECT_THAT(problem("hugepages-128kB/enabled", "always", k64),
              HasSubstr("order-1 folios are used for shmem only"));
}

TEST(KnobCatalogTest, UnknownKernelsAndPatchedKernels) {
  EXPECT_EQ(problem("hugepages-64kB/enabled", "alway", KernelFacts{"6.6", 4}), "<ok>");
  EXPECT_EQ(problem("no_such_knob", "x", KernelFacts{"", 4}), "<ok>");
  EXPECT_TRUE(thp_knob_files(KernelFacts{"6.13", 4}).empty());
  // A patch series may add files, not change the ones 6.12 has.
  const KernelFacts patched{"6.12", 4, true};
  EXPECT_EQ(problem("thp_utilization", "1", patched), "<ok>");
  EXPECT_THAT(problem("enabled", "sometimes", patched), HasSubstr("not offered"));
  EXPECT_THAT(problem("hugepages-8kB/enabled", "always", patched),
              HasSubstr("order-1 folios are used for shmem only"));
  // The seed-001 mistake: 128K is order 1 with 64K pages.
  EXPECT_THAT(problem("hugepages-128kB/enabled", "always", KernelFacts{"6.12", 64, true}),
              HasSubstr("Linux 6.12 has no hugepages-128kB/enabled"));
}

TEST(KnobCatalogTest, KernelFacts) {
  KernelSpec debian{.name = "k"};
  EXPECT_EQ(kernel_facts(debian, Arch::kArm64)->page_size_kb, 4);
  EXPECT_EQ(kernel_facts(debian, Arch::kArm64)->version, "6.12");
  EXPECT_FALSE(kernel_facts(debian, Arch::kX86_64)->patched);
  KernelSpec big{.name = "k64", .config = {"debug", "arm64-64k"}};
  EXPECT_EQ(kernel_facts(big, Arch::kArm64)->page_size_kb, 64);
  EXPECT_EQ(kernel_facts(big, Arch::kX86_64)->page_size_kb, 4);  // an arm64-only fragment
  KernelSpec mid{.name = "k16", .config = {"arm64-16k"}};
  EXPECT_EQ(kernel_facts(mid, Arch::kArm64)->page_size_kb, 16);
  KernelSpec inline_opt{.name = "k64i", .options = {{"CONFIG_ARM64_64K_PAGES", "y"}}};
  EXPECT_EQ(kernel_facts(inline_opt, Arch::kArm64)->page_size_kb, 64);
  // 16K pages: PMD is 32M, so 2M is an mTHP size with an `enabled` file and 32K is order 1.
  KernelFacts f16{"6.12", 16, false};
  EXPECT_TRUE(check_knob("hugepages-2048kB/enabled", "always", f16).ok());
  EXPECT_TRUE(check_knob("hugepages-32768kB/enabled", "inherit", f16).ok());
  EXPECT_FALSE(check_knob("hugepages-32kB/enabled", "always", f16).ok());
  KernelSpec patched{.name = "p", .patches = "mthp-vmstat"};
  EXPECT_TRUE(kernel_facts(patched, Arch::kX86_64)->patched);
  KernelSpec local{.name = "l", .source = "src/linux"};
  EXPECT_FALSE(kernel_facts(local, Arch::kX86_64));
}

Experiment load_catalog(const std::string& text) {
  auto exp = parse_experiment(text, "k.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

TEST(ValidateKnobsTest, ReportsEachProblemWithLocationAndArchs) {
  const Experiment exp = load_catalog(R"(name: q
kernels:
  - name: k
  - name: k64
    config: [arm64-64k]
    archs: [arm64]
  - name: mine
    source: src/linux
archs: [x86_64, arm64]
knobs:
  "64K":
    hugepages-64kB/enabled: alway
  "ok":
    enabled: never
    khugepaged/max_ptes_none: 511
workloads: [{name: fault}, {name: fault, label: again}]
)");
  const Result<void> st = validate_knobs(exp);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "k.yaml:12:29: knobs[\"64K\"].hugepages-64kB/enabled: 'alway' is not offered by Linux "
            "6.12 (always inherit madvise never); did you mean 'always'? (kernel k on x86_64, "
            "arm64)\n"
            "k.yaml:12:29: knobs[\"64K\"].hugepages-64kB/enabled: Linux 6.12 with 64K pages has "
            "no hugepages-64kB/ (anonymous mTHP sizes: 256kB..524288kB, shmem: "
            "128kB..131072kB) (kernel k64 on arm64)");
}

TEST(ValidateKnobsTest, ExcludedCombinationsAreNotChecked) {
  const Experiment exp = load_catalog(R"(name: q
kernels:
  - name: k
  - name: k64
    config: [arm64-64k]
    archs: [arm64]
archs: [x86_64, arm64]
knobs:
  "4K": {hugepages-64kB/enabled: never}
  "64K": {hugepages-64kB/enabled: always}
  "64K on 64K pages": {hugepages-256kB/enabled: always, khugepaged/max_ptes_none: 8191}
workloads: [{name: fault}]
exclude:
  - {kernel: k64, knobs: "4K"}
  - {kernel: k64, knobs: "64K"}
  - {kernel: k, knobs: "64K on 64K pages"}
)");
  const Result<void> st = validate_knobs(exp);
  EXPECT_TRUE(st.ok()) << st.error().message;
}

TEST(ValidateKnobsTest, QuickstartIsClean) {
  auto exp = load_experiment(std::string(foliolab::source_dir()) + "/experiments/quickstart.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const Result<void> st = validate_knobs(*exp);
  EXPECT_TRUE(st.ok()) << st.error().message;
}

}  // namespace
}  // namespace foliolab
