// Where a run's kernel, base image and workload files come from: built (or found in the cache)
// by KernelBuilder, ImageBuilder and KselftestBuilder, or given by a fake in the tests.
#pragma once

#include <vector>

#include "image/cpio.h"
#include "image/image_builder.h"
#include "image/kselftest_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
#include "runner/guest_second_stage.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

class ArtifactProvider {
 public:
  virtual ~ArtifactProvider() = default;
  virtual Result<KernelArtifact> kernel(const KernelSpec& spec, Arch arch) = 0;
  virtual Result<ImageArtifact> image(Arch arch) = 0;
  // machine.image: the Debian root filesystem images/<recipe>.yaml describes, for `arch`.
  virtual Result<RootfsArtifact> rootfs(const std::string& recipe, Arch arch) = 0;
  // Files a workload needs in the run's job archive (a custom program, the mm selftests built
  // from `kernel`'s tree); usually none.
  virtual Result<std::vector<CpioEntry>> workload_files(const WorkloadSpec& w,
                                                        const KernelSpec& kernel, Arch arch) = 0;
};

class BuildingArtifactProvider : public ArtifactProvider {
 public:
  // `foreign`: how another arch's Debian image is made (image/second_stage.h); the second stage
  // boots the quickstart's kernel, built here like any other.
  BuildingArtifactProvider(ProcessRunner& runner, KernelBuildOptions kernel_options,
                           ForeignPath foreign = ForeignPath::kAuto);
  Result<KernelArtifact> kernel(const KernelSpec& spec, Arch arch) override;
  Result<ImageArtifact> image(Arch arch) override;
  Result<RootfsArtifact> rootfs(const std::string& recipe, Arch arch) override;
  Result<std::vector<CpioEntry>> workload_files(const WorkloadSpec& w, const KernelSpec& kernel,
                                                Arch arch) override;
  // The Debian image builder behind rootfs(), for a caller with a recipe in hand (`image`).
  RootfsBuilder& rootfs_builder() { return rootfs_; }

 private:
  ProcessRunner& runner_;
  KernelBuildOptions kopt_;
  KernelBuilder kernels_;
  ImageBuilder images_;
  GuestSecondStage second_stage_;
  RootfsBuilder rootfs_;
  KselftestBuilder kselftests_;
};

// The kernel a backend that builds none runs: the host's own (its release as the version, no
// build id and no image).
KernelArtifact host_kernel_artifact(const KernelSpec& spec, Arch arch);

}  // namespace foliolab
