// The real ArtifactProvider: a run's kernel, base image, root filesystem and workload files built
// (or found in the cache) by KernelBuilder, ImageBuilder, RootfsBuilder and KselftestBuilder.
// Another arch's root filesystem made without emulation on the host gets its second stage in a
// guest (runner/guest_second_stage.h) booted by a QEMU backend of its own.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"
#include "image/image_builder.h"
#include "image/kselftest_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "runner/artifact_provider.h"
#include "runner/guest_second_stage.h"
#include "util/process.h"

namespace foliolab {

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
  QemuBackend stage_backend_;  // the second stage's guests (TCG)
  GuestSecondStage second_stage_;
  RootfsBuilder rootfs_;
  KselftestBuilder kselftests_;
};

}  // namespace foliolab
