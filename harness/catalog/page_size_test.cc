#include "catalog/page_size.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

// Two kernels: 4K pages on both arches, and a 64K-page kernel on arm64 only (as seed 001).
Experiment page_experiment(const std::string& size) {
  const std::string yaml = R"(name: pages
kernels:
  - name: "6.12"
  - name: 6.12-64k
    config: [arm64-64k]
    archs: [arm64]
archs: [x86_64, arm64]
knobs:
  4K: {enabled: never}
workloads:
  - name: fault
    params: {size: )" + size +
                           R"(}
)";
  auto exp = parse_experiment(yaml, "pages.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return *exp;
}

TEST(PageSize, FromArchFragmentsAndOptions) {
  KernelSpec plain{.name = "k"};
  EXPECT_EQ(guest_page_size_kb(plain, Arch::kX86_64), 4);
  EXPECT_EQ(guest_page_size_kb(plain, Arch::kArm64), 4);
  KernelSpec big{.name = "k64", .config = {"arm64-64k"}};
  EXPECT_EQ(guest_page_size_kb(big, Arch::kArm64), 64);
  EXPECT_EQ(guest_page_size_kb(big, Arch::kX86_64), 4);  // an arm64-only fragment
  KernelSpec mid{.name = "k16", .options = {{"CONFIG_ARM64_16K_PAGES", "y"}}};
  EXPECT_EQ(guest_page_size_kb(mid, Arch::kArm64), 16);
}

TEST(PageSize, SizeText) {
  EXPECT_EQ(size_text(6 << 10), "6K");
  EXPECT_EQ(size_text(64ull << 20), "64M");
  EXPECT_EQ(size_text(2ull << 30), "2G");
  EXPECT_EQ(size_text(1000), "1000");
}

// 6K fits no kernel of the plan: both page sizes are named, each with its nearest sizes.
TEST(PageSize, SixKOnA4KKernelIsRejectedWithTheLocationAndNearestSizes) {
  Result<void> st = check_page_multiples(page_experiment("6K"));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(
      st.error().message,
      HasSubstr("pages.yaml:12:20: workloads[0].params.size: 6K is not a multiple of the 4K page "
                "size of kernel 6.12 (arm64, x86_64); nearest valid sizes: 4K, 8K"));
  EXPECT_THAT(
      st.error().message,
      HasSubstr("pages.yaml:12:20: workloads[0].params.size: 6K is not a multiple of the 64K page "
                "size of kernel 6.12-64k (arm64); nearest valid sizes: 64K"));
}

TEST(PageSize, NinetySixKFailsOnlyThe64KKernel) {
  Result<void> st = check_page_multiples(page_experiment("96K"));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(
      st.error().message,
      "pages.yaml:12:20: workloads[0].params.size: 96K is not a multiple of the 64K page size of "
      "kernel 6.12-64k (arm64); nearest valid sizes: 64K, 128K");
}

TEST(PageSize, SixtyFourKFitsEveryKernel) {
  EXPECT_TRUE(check_page_multiples(page_experiment("64K")).ok());
  EXPECT_TRUE(check_page_multiples(page_experiment("64M")).ok());
}

}  // namespace
}  // namespace foliolab
