// Which fragments a guest kernel is built from: guest-base, the arch's, then the kernel's own.
#include "kernel/guest_fragments.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace foliolab {
namespace {

using ::testing::ElementsAre;

TEST(GuestFragments, BaseAndArchFirstThenTheKernelsOwn) {
  KernelSpec k;
  EXPECT_THAT(kernel_fragments(k, Arch::kX86_64), ElementsAre("guest-base", "x86_64"));
  k.config = {"arm64-64k", "debug"};
  EXPECT_THAT(kernel_fragments(k, Arch::kArm64),
              ElementsAre("guest-base", "arm64", "arm64-64k", "debug"));
}

}  // namespace
}  // namespace foliolab
