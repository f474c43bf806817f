// Which guest kernel an experiment's runs boot: the small one unless a run needs the full one.
#include "catalog/guest_kernel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const char* const kGuestKernelHead =
    "name: g\n"
    "kernels: [{name: k}]\n"
    "archs: [x86_64, arm64]\n"
    "knobs: {a: {enabled: never}}\n";

Experiment guest_experiment(const std::string& rest) {
  auto exp = parse_experiment(std::string(kGuestKernelHead) + rest, "g.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

TEST(GuestKernel, TheQuickstartShapeNeedsOnlyTheSmallKernel) {
  Experiment exp = guest_experiment(
      "machine: {cpus: 1, memory: 1G}\n"
      "workloads: [{name: fault}, {name: collapse}, {name: zero-page}]\n");
  EXPECT_THAT(full_guest_reasons(exp, Arch::kX86_64), IsEmpty());
  EXPECT_THAT(full_guest_reasons(exp, Arch::kArm64), IsEmpty());
  ASSERT_TRUE(settle_guest_kernels(exp).ok());
  EXPECT_THAT(exp.kernels[0].full_guest, IsEmpty());
}

TEST(GuestKernel, EachNeedIsAReason) {
  Experiment exp = guest_experiment(
      "machine: {cpus: 1, memory: 1G, swap: {type: zram, size: 64M}}\n"
      "cgroup: {memory.max: 32M}\n"
      "workloads: [{name: kselftest-mm}, {name: fault}]\n");
  EXPECT_THAT(full_guest_reasons(exp, Arch::kArm64),
              ElementsAre("machine.swap", "cgroup (a memory cgroup)",
                          "workload kselftest-mm: debugfs, userfaultfd and hugetlbfs"));
  ASSERT_TRUE(settle_guest_kernels(exp).ok());
  EXPECT_THAT(exp.kernels[0].full_guest, ElementsAre(Arch::kX86_64, Arch::kArm64));
}

TEST(GuestKernel, SeveralCpusNeedTheFullKernelOnX86Only) {
  Experiment exp = guest_experiment(
      "machine: {cpus: 2, memory: 1G}\n"
      "workloads: [{name: fault}]\n");
  EXPECT_THAT(full_guest_reasons(exp, Arch::kX86_64),
              ElementsAre(HasSubstr("machine.cpus: 2 (x86_64 brings its other CPUs up through")));
  EXPECT_THAT(full_guest_reasons(exp, Arch::kArm64), IsEmpty());  // PSCI, from the device tree
  ASSERT_TRUE(settle_guest_kernels(exp).ok());
  EXPECT_THAT(exp.kernels[0].full_guest, ElementsAre(Arch::kX86_64));
}

// A sysctl that only the full kernel has (hugetlbfs, NUMA) is a reason too: on the small one the
// run would fail at the knob's write.
TEST(GuestKernel, ASysctlOnlyTheFullKernelHasIsAReason) {
  auto exp = parse_experiment(
      "name: g\n"
      "kernels: [{name: k}]\n"
      "archs: [arm64]\n"
      "knobs: {a: {sysctl: {vm/nr_hugepages: 16, vm/overcommit_memory: 1}}}\n"
      "workloads: [{name: fault}]\n",
      "g.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_THAT(full_guest_reasons(*exp, Arch::kArm64),
              ElementsAre("sysctl vm/nr_hugepages (hugetlbfs)"));
}

TEST(GuestKernel, GuestFullForcesItAndAKernelsArchsFilterIsKept) {
  auto exp = parse_experiment(
      "name: g\n"
      "kernels: [{name: k, guest: full, archs: [arm64]}]\n"
      "archs: [x86_64, arm64]\n"
      "knobs: {a: {enabled: never}}\n"
      "workloads: [{name: fault}]\n",
      "g.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_TRUE(settle_guest_kernels(*exp).ok());
  EXPECT_THAT(exp->kernels[0].full_guest, ElementsAre(Arch::kArm64));
}

TEST(GuestKernel, GuestSmallWhereARunNeedsMoreIsALocatedErrorNamingTheReasons) {
  auto exp = parse_experiment(
      "name: g\n"
      "kernels: [{name: k, guest: small}]\n"
      "archs: [arm64]\n"
      "machine: {image: debian-redis}\n"
      "knobs: {a: {enabled: never}}\n"
      "workloads: [{name: redis}]\n",
      "g.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  auto st = settle_guest_kernels(*exp);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message,
              HasSubstr("g.yaml:2:28: kernels[0].guest: small, but the runs on arm64 need the full "
                        "guest kernel: machine.image"));
  EXPECT_THAT(st.error().message, HasSubstr("workload redis: a root filesystem, sockets"));
}

TEST(GuestKernel, AnUnknownGuestValueIsALoaderError) {
  auto exp = parse_experiment(
      "name: g\n"
      "kernels: [{name: k, guest: tiny}]\n"
      "archs: [arm64]\n"
      "knobs: {a: {enabled: never}}\n"
      "workloads: [{name: fault}]\n",
      "g.yaml");
  ASSERT_FALSE(exp.ok());
  EXPECT_THAT(exp.error().message, HasSubstr("g.yaml:2:28: kernels[0].guest"));
}

}  // namespace
}  // namespace foliolab
