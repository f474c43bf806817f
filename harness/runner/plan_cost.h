// What a plan will cost before anything is built (the model: model/plan_cost.h): which kernels
// and base images are cached and which will be built, and how long the builds should take on
// this host, from the builds its cache already holds (kernel.json's build_seconds), else a
// generic figure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
#include "model/plan_cost.h"
#include "results/index.h"
#include "util/result.h"

namespace foliolab {

// A generic kernel build on 2 cores, for a host that has built none yet: twice what the small
// and the full guest kernel took on the 2-core machine of docs/kernels.md, "Build times".
inline constexpr double kGenericSmallKernelSeconds = 300;
inline constexpr double kGenericFullKernelSeconds = 600;

// machine.image's recipe and the builder that looks its disks up.
struct RootfsPlan {
  RootfsBuilder* builder = nullptr;
  const ImageRecipe* recipe = nullptr;
};

// Kernels and images of `runs` looked up (nothing built; the host backend builds no kernel
// when `needs_kernel` is false). A kernel the builder cannot plan (a source that is not there)
// is an error: `plan` has validated the experiment before.
Result<PlanCost> plan_cost(const Experiment& exp, const std::vector<Run>& runs,
                           KernelBuilder& kernels, ImageBuilder& images, bool needs_kernel,
                           const std::vector<PastKernelBuild>& past, ResultIndex* index,
                           RootfsPlan rootfs = {});

// The guests' time of `runs` from `index` (nullptr: none known); with `exp`, the worst case of
// its adaptive repetitions too.
GuestEstimate estimate_guests(const std::vector<Run>& runs, ResultIndex* index,
                              const Experiment* exp = nullptr);

// Each kernel to build takes the median of this host's past builds of its arch and kind (small
// or full guest kernel: twice apart), else of its arch, else of any arch, else the generic
// figure of its kind.
BuildEstimate estimate_builds(const std::vector<PlannedKernel>& kernels,
                              const std::vector<PastKernelBuild>& past);

}  // namespace foliolab
