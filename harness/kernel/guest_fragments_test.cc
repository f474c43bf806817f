// Which fragments a guest kernel is built from: guest-base, the arch's, guest-full and the arch's
// full fragment for the full guest kernel, then the kernel's own.
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

TEST(GuestFragments, TheFullKernelAddsGuestFullAndTheArchsFullFragmentOnItsArchsOnly) {
  KernelSpec k;
  k.config = {"debug"};
  k.full_guest = {Arch::kX86_64};
  EXPECT_TRUE(is_full_guest(k, Arch::kX86_64));
  EXPECT_FALSE(is_full_guest(k, Arch::kArm64));
  EXPECT_THAT(kernel_fragments(k, Arch::kX86_64),
              ElementsAre("guest-base", "x86_64", "guest-full", "x86_64-full", "debug"));
  EXPECT_THAT(kernel_fragments(k, Arch::kArm64), ElementsAre("guest-base", "arm64", "debug"));
  k.full_guest = {Arch::kArm64};  // arm64 has no full fragment of its own
  EXPECT_THAT(kernel_fragments(k, Arch::kArm64),
              ElementsAre("guest-base", "arm64", "guest-full", "debug"));
}

}  // namespace
}  // namespace foliolab
