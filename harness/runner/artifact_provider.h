// Where a run's kernel, base image and workload files come from: the seam. Built (or found in
// the cache) by BuildingArtifactProvider (runner/building_artifact_provider.h), or given by a
// fake in the tests (testing/fake_artifacts.h). The planner asks for image() on a thread of its
// own while the other calls run (runner/planner.h): image() must not share unguarded state with
// them.
#pragma once

#include <vector>

#include "image/cpio.h"
#include "image/image_builder.h"
#include "image/kselftest_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
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

// The kernel a backend that builds none runs: the host's own (its release as the version, no
// build id and no image).
KernelArtifact host_kernel_artifact(const KernelSpec& spec, Arch arch);

}  // namespace foliolab
