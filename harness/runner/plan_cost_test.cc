#include "runner/plan_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/plan_cost.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

TEST(PlanCost, CachedKernelsCostNothing) {
  PlanCost cost{.kernels = {{"k", "x86_64", "1300c8170a8f29e2", true},
                            {"k", "arm64", "237247518efd22e7", true}},
                .images = {{"x86_64", "a", true}, {"arm64", "b", false}}};
  cost.builds = estimate_builds(cost.kernels, {{"x86_64", 300}});
  cost.guests = {.seconds = 21.4, .known = 4, .runs = 4};
  EXPECT_EQ(cost.builds.seconds, 0);
  EXPECT_EQ(plan_cost_text(cost),
            "kernels: k x86_64 small cached (1300c8170a8f29e2), k arm64 small cached "
            "(237247518efd22e7)\n"
            "images: x86_64 cached, arm64 to build (seconds each)\n"
            "builds: none (all 2 kernels cached)\n"
            "guests: about 21s for 4 of the 4 runs, one after another (this host's last ok run of "
            "each; -j N guests at once take less)\n");
}

// A full guest kernel says so, and why, once per reason.
TEST(PlanCost, AFullGuestKernelSaysWhy) {
  PlanCost cost{.kernels = {{"k", "x86_64", "a1", false, true, "machine.cpus: 2 (x86_64 ...)"},
                            {"k", "arm64", "b2", true}}};
  EXPECT_THAT(plan_cost_text(cost),
              HasSubstr("kernels: k x86_64 full to build (a1), k arm64 small cached (b2)\n"
                        "full guest kernel (kernel-config/guest-full.config) for:\n"
                        "  k on x86_64: machine.cpus: 2 (x86_64 ...)\n"));
}

// A kernel to build takes the median of this host's builds of its arch, else of any arch.
TEST(PlanCost, EstimatesFromThisHostsPastBuilds) {
  const std::vector<PastKernelBuild> past = {
      {"x86_64", 200}, {"x86_64", 240}, {"x86_64", 500}, {"arm64", 170}};
  std::vector<PlannedKernel> x86 = {{"k2", "x86_64", "id", false}};
  EXPECT_EQ(estimate_builds(x86, past).seconds, 240);
  EXPECT_EQ(estimate_builds(x86, past).from_builds, 3);
  std::vector<PlannedKernel> both = {{"k2", "x86_64", "a", false}, {"k2", "arm64", "b", false}};
  EXPECT_EQ(estimate_builds(both, past).seconds, 240 + 170);
  std::vector<PlannedKernel> arm_only_past = {{"k2", "arm64", "b", false}};
  EXPECT_EQ(estimate_builds(arm_only_past, {{"x86_64", 200}, {"x86_64", 300}}).seconds, 250);
  PlanCost cost{.kernels = both, .builds = estimate_builds(both, past)};
  EXPECT_THAT(plan_cost_text(cost),
              HasSubstr("builds: 2 kernels, about 6m50s (from the median of this host's 3 past "
                        "builds)\n"));
}

// The small and the full guest kernel are twice apart: each is estimated from its own kind.
TEST(PlanCost, SmallAndFullKernelsAreEstimatedFromTheirOwnKind) {
  const std::vector<PastKernelBuild> past = {
      {"x86_64", 150, false}, {"x86_64", 160, false}, {"x86_64", 320, true}, {"arm64", 140, false}};
  const std::vector<PlannedKernel> small = {{"k", "x86_64", "a", false, false}};
  const std::vector<PlannedKernel> full = {{"k", "x86_64", "b", false, true}};
  EXPECT_EQ(estimate_builds(small, past).seconds, 155);
  EXPECT_EQ(estimate_builds(small, past).from_builds, 2);
  EXPECT_EQ(estimate_builds(full, past).seconds, 320);
  // No full arm64 kernel yet: the arch's small ones are the nearest figure.
  const std::vector<PlannedKernel> full_arm = {{"k", "arm64", "c", false, true}};
  EXPECT_EQ(estimate_builds(full_arm, past).seconds, 140);
}

// The same series as a quilt folder, an mbox and a format-patch folder is one build id: one build.
TEST(PlanCost, KernelsWithOneBuildIdAreOneBuild) {
  const std::vector<PlannedKernel> forms = {{"quilt", "x86_64", "04cc", false},
                                            {"mbox", "x86_64", "04cc", false},
                                            {"format-patch", "x86_64", "04cc", false}};
  EXPECT_EQ(estimate_builds(forms, {{"x86_64", 200}}).seconds, 200);
  PlanCost cost{.kernels = forms};
  EXPECT_EQ(cost.to_build(), 1);
}

TEST(PlanCost, AHostWithoutPastBuildsGetsTheGenericFigure) {
  std::vector<PlannedKernel> one = {{"k", "x86_64", "a", false}};
  PlanCost cost{.kernels = one, .builds = estimate_builds(one, {})};
  EXPECT_EQ(cost.builds.seconds, kGenericSmallKernelSeconds);
  EXPECT_THAT(plan_cost_text(cost),
              HasSubstr("builds: 1 kernel, about 5m00s (generic, 2 cores: this host's cache "
                        "holds no past build)\n"));
  std::vector<PlannedKernel> full = {{"k", "x86_64", "a", false, true}};
  EXPECT_EQ(estimate_builds(full, {}).seconds, kGenericFullKernelSeconds);
}

// Adaptive repetitions: the worst case scales each known run to warm-up + max reps; without a
// past run, the ratio to the minimum.
TEST(PlanCost, AdaptiveRepetitionsPrintTheWorstCase) {
  PlanCost cost;
  cost.guests = {.seconds = 40,
                 .known = 2,
                 .runs = 2,
                 .adaptive = true,
                 .worst_seconds = 400,
                 .min_reps = 3,
                 .max_reps = 30};
  EXPECT_THAT(plan_cost_text(cost),
              HasSubstr("reps: adaptive, 3..30 per run; worst case, every run to 30: about 6m40s "
                        "for those 2 runs\n"));
  cost.guests = {.runs = 2, .adaptive = true, .min_reps = 3, .max_reps = 30, .warmup = 1};
  EXPECT_THAT(plan_cost_text(cost),
              HasSubstr("reps: adaptive, 3..30 + 1 warm-up per run; worst case, every run to 30: "
                        "up to 7.75× the time of 3 reps each\n"));
  Experiment exp;
  exp.repeat = 3;
  exp.adaptive = AdaptiveRepeat{.max = 12, .ci = 0.5};
  const GuestEstimate g = estimate_guests({}, nullptr, &exp);
  EXPECT_TRUE(g.adaptive);
  EXPECT_EQ(g.max_reps, 12);
  EXPECT_FALSE(estimate_guests({}, nullptr).adaptive);
}

}  // namespace
}  // namespace foliolab
