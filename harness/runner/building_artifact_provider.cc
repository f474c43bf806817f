#include "runner/building_artifact_provider.h"

#include <fmt/format.h>

#include "catalog/kselftest_catalog.h"
#include "image/custom_workload.h"
#include "model/image_recipe.h"

namespace foliolab {
namespace {

// This binary: the image builder runs another arch's programs through its `__foreign-exec`.
std::filesystem::path self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("foliolab") : p;
}

}  // namespace

BuildingArtifactProvider::BuildingArtifactProvider(ProcessRunner& runner,
                                                   KernelBuildOptions kernel_options,
                                                   ForeignPath foreign)
    : runner_(runner),
      kopt_(kernel_options),
      kernels_(runner, kernel_options),
      images_(runner, kernel_options.data_root, kernel_options.cache),
      stage_backend_(runner, {.cache_dir = kernel_options.cache}),
      second_stage_(*this, stage_backend_, {.data_root = kernel_options.data_root}),
      rootfs_(runner, {.cache = kernel_options.cache,
                       .self_exe = self_exe(),
                       .foreign = foreign,
                       .second_stage = &second_stage_}),
      kselftests_(runner, {.data_root = kernel_options.data_root,
                           .project = kernel_options.project,
                           .spec_dir = kernel_options.spec_dir,
                           .cache = kernel_options.cache}) {}

Result<std::vector<CpioEntry>> BuildingArtifactProvider::workload_files(const WorkloadSpec& w,
                                                                        const KernelSpec& kernel,
                                                                        Arch arch) {
  if (runs_tree_programs(w)) return kselftests_.job_files(w, kernel, arch);
  return custom_workload_files(runner_, w, arch, kopt_.spec_dir, kopt_.cache);
}

Result<KernelArtifact> BuildingArtifactProvider::kernel(const KernelSpec& spec, Arch arch) {
  return kernels_.build(spec, arch);
}

Result<ImageArtifact> BuildingArtifactProvider::image(Arch arch) { return images_.build(arch); }

Result<RootfsArtifact> BuildingArtifactProvider::rootfs(const std::string& recipe, Arch arch) {
  const SearchPath names(kopt_.project, kopt_.data_root);
  const auto file = find_image_recipe(names, recipe);
  if (!file) {
    return make_error(fmt::format("no image recipe '{}' (no {})", recipe,
                                  names.searched(image_recipe_rel(recipe))));
  }
  auto r = load_image_recipe(file->path.string());
  FL_TRY(r);
  return rootfs_.build(*r, arch);
}

}  // namespace foliolab
