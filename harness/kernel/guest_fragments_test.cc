// Which fragments a guest kernel is built from: the small kernel unless the experiment's guests
// need a root filesystem (machine.image, a churn step, also a knob set's) or zswap.
#include "kernel/guest_fragments.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/minimal_experiment.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;

GuestNeeds needs_of(const std::string& extra) {
  auto exp = parse_minimal(extra);
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  if (!exp.ok()) return {};
  EXPECT_EQ(exp->kernels.size(), 1u);
  return exp->kernels[0].needs;
}

TEST(GuestFragments, TheQuickstartShapeBuildsTheSmallKernel) {
  EXPECT_EQ(needs_of(""), GuestNeeds{});
  // Swap on zram or a disk, a cgroup and the in-memory fragmenters need nothing more.
  EXPECT_EQ(needs_of("machine: {swap: {type: zram, size: 256M}}\ncgroup: {memory.max: 32M}\n"
                     "prepare:\n  - fragment: {method: thpscale}\n  - reclaim: 16M\n"),
            GuestNeeds{});
  EXPECT_EQ(needs_of("machine: {swap: {type: disk, size: 512M}}\n"), GuestNeeds{});
  EXPECT_THAT(guest_fragments(Arch::kX86_64, {}), ElementsAre("guest-base", "x86_64"));
  EXPECT_THAT(guest_fragments(Arch::kArm64, {}), ElementsAre("guest-base", "arm64"));
}

TEST(GuestFragments, ARootFilesystemOrChurnAddsGuestRootfs) {
  EXPECT_EQ(needs_of("machine: {image: debian-redis}\n"), (GuestNeeds{.rootfs = true}));
  EXPECT_EQ(needs_of("machine: {image: initramfs}\n"), GuestNeeds{});
  EXPECT_EQ(needs_of("prepare:\n  - fragment: {method: churn, size: 64M}\n"),
            (GuestNeeds{.rootfs = true}));
  // A knob set's own churn step counts: every kernel of the experiment gets the fragment.
  auto exp = parse_experiment(
      "name: q\nkernels: [{name: a}, {name: b}]\narchs: [x86_64]\nknobs:\n"
      "  fresh: {enabled: always}\n"
      "  churned: {enabled: always, prepare: [{fragment: {method: churn, size: 64M}}]}\n"
      "workloads: [{name: fault}]\n",
      "q.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  for (const KernelSpec& k : exp->kernels) EXPECT_TRUE(k.needs.rootfs) << k.name;
  EXPECT_THAT(guest_fragments(Arch::kArm64, {.rootfs = true}),
              ElementsAre("guest-base", "arm64", "guest-rootfs"));
}

TEST(GuestFragments, ZswapAddsGuestZswap) {
  EXPECT_EQ(needs_of("machine: {swap: {type: zram, size: 256M}, zswap: {enabled: true}}\n"),
            (GuestNeeds{.zswap = true}));
  EXPECT_THAT(guest_fragments(Arch::kX86_64, {.rootfs = true, .zswap = true}),
              ElementsAre("guest-base", "x86_64", "guest-rootfs", "guest-zswap"));
}

TEST(GuestFragments, TheKernelsOwnFragmentsComeLast) {
  KernelSpec k;
  k.config = {"arm64-64k", "debug"};
  k.needs.rootfs = true;
  EXPECT_THAT(kernel_fragments(k, Arch::kArm64),
              ElementsAre("guest-base", "arm64", "guest-rootfs", "arm64-64k", "debug"));
}

}  // namespace
}  // namespace foliolab
