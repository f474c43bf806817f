#include "cli/image_command.h"

#include <algorithm>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "cli/cli_util.h"
#include "cli/run_setup.h"
#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/image_recipe.h"
#include "model/project.h"
#include "results/index.h"
#include "results/store.h"
#include "runner/building_artifact_provider.h"
#include "util/text.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

// `image --recipe NAME`: the recipe's ext4 disk per arch, built or found in the cache.
int build_rootfs_images(ProcessRunner& proc, const Common& common, const std::string& name,
                        const std::vector<std::string>& archs, ForeignPath foreign) {
  const fs::path root(common.root);
  // A recipe of the project the working directory is in comes before foliolab's.
  const SearchPath names(project_of(fs::current_path()), root);
  const auto file = find_image_recipe(names, name);
  if (!file) {
    fmt::print(stderr, "error: no image recipe '{}' (no {}){}\n", name,
               names.searched(image_recipe_rel(name)),
               did_you_mean(name, image_recipe_names(names)));
    return kExitBadInput;
  }
  auto recipe = load_image_recipe(file->path.string());
  if (!recipe.ok()) return fail(recipe.error());
  // Through the provider: a second stage boots the quickstart's kernel, built like any other.
  BuildingArtifactProvider artifacts(proc, {.data_root = root, .cache = common.cache}, foreign);
  RootfsBuilder& builder = artifacts.rootfs_builder();
  int rc = kExitOk;
  for (const auto& arch_name : archs) {
    auto arch = parse_arch(arch_name);
    if (!arch) {
      fmt::print(stderr, "error: unknown arch {}\n", arch_name);
      return kExitBadInput;
    }
    if (auto seen = builder.lookup(*recipe, *arch); seen.ok() && !seen->cached) {
      log_line(fmt::format("building image {} for {} (mmdebstrap from Debian's archive; {})", name,
                           arch_name, way_name(builder.way(*arch))));
    }
    auto art = builder.build(*recipe, *arch);
    if (!art.ok()) {  // a package Debian lacks is bad input (2); the rest is the environment (3)
      rc = std::max(rc, fail(art.error(), exit_code_for(art.error())));
      continue;
    }
    fmt::print("{} {} {} {} {} ({} packages{})\n", name, arch_name, art->image_id,
               art->cache_hit ? "cached" : "built", art->disk.string(), art->packages,
               art->cache_hit ? "" : fmt::format(", {:.0f} s", art->build_seconds));
  }
  return rc;
}

}  // namespace

std::function<int()> setup_image(CLI::App& app) {
  auto common = std::make_shared<Common>();
  auto archs =
      std::make_shared<std::vector<std::string>>(std::vector<std::string>{"x86_64", "arm64"});
  app.add_option("--arch", *archs, "architectures (default: all)");
  auto recipe = std::make_shared<std::string>();
  app.add_option("--recipe", *recipe,
                 "a Debian root filesystem recipe, images/<NAME>.yaml (default: the initramfs)");
  auto foreign = std::make_shared<std::string>("auto");
  app.add_option("--foreign", *foreign,
                 "another arch's Debian image: binfmt (qemu-user in a private binfmt_misc, Linux "
                 "6.7+), guest (unpacked here, second stage in a guest of that arch) or auto")
      ->check(CLI::IsMember({"auto", "binfmt", "guest"}));
  common->add(app);
  return [=] {
    RealProcessRunner proc;
    if (!recipe->empty()) {
      return build_rootfs_images(proc, *common, *recipe, *archs, *parse_foreign_path(*foreign));
    }
    ImageBuilder builder(proc, common->root, common->cache);
    int rc = kExitOk;
    for (const auto& name : *archs) {
      auto arch = parse_arch(name);
      if (!arch) {
        fmt::print(stderr, "error: unknown arch {}\n", name);
        return kExitBadInput;
      }
      auto art = builder.build(*arch);
      if (!art.ok()) {
        rc = std::max(rc, fail(art.error(), kExitFailed));
        continue;
      }
      fmt::print("{} {} {} {}\n", name, art->image_id, art->cache_hit ? "cached" : "built",
                 art->cpio.string());
    }
    return rc;
  };
}

}  // namespace foliolab::cli
