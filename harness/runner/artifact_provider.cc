#include "runner/artifact_provider.h"

#include <sys/utsname.h>

#include "catalog/kselftest_catalog.h"
#include "image/custom_workload.h"

namespace foliolab {

BuildingArtifactProvider::BuildingArtifactProvider(ProcessRunner& runner,
                                                   KernelBuildOptions kernel_options)
    : runner_(runner),
      kopt_(kernel_options),
      kernels_(runner, kernel_options),
      images_(runner, kernel_options.project_root, kernel_options.cache),
      kselftests_(runner, {.project_root = kernel_options.project_root,
                           .spec_dir = kernel_options.spec_dir,
                           .cache = kernel_options.cache}) {}

Result<std::vector<CpioEntry>> BuildingArtifactProvider::workload_files(const WorkloadSpec& w,
                                                                        const KernelSpec& kernel,
                                                                        Arch arch) {
  if (is_kselftest(w)) return kselftests_.job_files(w, kernel, arch);
  return custom_workload_files(runner_, w, arch, kopt_.spec_dir, kopt_.cache);
}

Result<KernelArtifact> BuildingArtifactProvider::kernel(const KernelSpec& spec, Arch arch) {
  return kernels_.build(spec, arch);
}

Result<ImageArtifact> BuildingArtifactProvider::image(Arch arch) { return images_.build(arch); }

KernelArtifact host_kernel_artifact(const KernelSpec& spec, Arch arch) {
  KernelArtifact k;
  utsname u{};
  if (::uname(&u) == 0) k.version = u.release;
  k.kernel_name = spec.name;
  k.arch = arch;
  k.cache_hit = true;
  return k;
}

}  // namespace foliolab
