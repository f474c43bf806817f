// What a plan will cost, as data: the kernels and images it needs, cached or to build, and the
// estimates of the builds and the guests. Computed by runner/plan_cost.h, printed by
// report/plan_cost.h.
#pragma once

#include <string>
#include <vector>

namespace foliolab {

struct PlannedKernel {
  std::string kernel;  // KernelSpec::name
  std::string arch;
  std::string build_id;
  bool cached = false;
  // The full guest kernel (kernel/guest_fragments.h) and why ("" = the small one).
  bool full_guest = false;
  std::string full_guest_why;
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

}  // namespace foliolab
