// What a plan will cost before anything is built: which kernels and base images are cached and
// which will be built, and how long the builds should take on this host, from the builds its
// cache already holds (kernel.json's build_seconds), else a generic figure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
#include "results/index.h"
#include "util/result.h"

namespace foliolab {

struct PlannedKernel {
  std::string kernel;  // KernelSpec::name
  std::string arch;
  std::string build_id;
  bool cached = false;
};

struct PlannedImage {
  std::string arch;
  std::string image_id;  // a root filesystem's: its recipe key
  bool cached = false;
  std::string recipe;  // a Debian root filesystem's recipe; "" for the base initramfs
};

struct BuildEstimate {
  double seconds = 0;   // for all the kernels to build
  int from_builds = 0;  // past builds of this host it is the median of (0: the generic figure)
};

// The guests' time from this host's last ok run of each planned run id (results index).
struct GuestEstimate {
  double seconds = 0;  // summed over the runs that ran before (one guest after another)
  int known = 0;       // runs with a past duration
  int runs = 0;        // runs planned
  // Adaptive repetitions: the known runs' time if every run went to max (each past duration
  // scaled by its reps to warm-up + max), and the bounds of the reps.
  bool adaptive = false;
  double worst_seconds = 0;
  int min_reps = 0, max_reps = 0, warmup = 0;
};

struct PlanCost {
  std::vector<PlannedKernel> kernels;  // (kernel, arch) in plan order, once each
  std::vector<PlannedImage> images;    // per arch, once each
  std::vector<PlannedImage> rootfs;    // machine.image: its disk per arch
  BuildEstimate builds;                // of the kernels not cached
  GuestEstimate guests;
  int to_build() const;
};

// A generic kernel build on 2 cores, for a host that has built none yet.
inline constexpr double kGenericKernelBuildSeconds = 600;

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

// Each kernel to build takes the median of this host's past builds of its arch (of any arch
// when there are none), else kGenericKernelBuildSeconds.
BuildEstimate estimate_builds(const std::vector<PlannedKernel>& kernels,
                              const std::vector<PastKernelBuild>& past);

}  // namespace foliolab
