// Test double for an ArtifactProvider: builds nothing. Every kernel is build b1d0000000000001
// (version 6.12.0), or the id `build_ids` gives its name (or the spec's pinned build_id), except
// one named "broken", whose build fails; its image path /nonexistent/<kernel name>/bzImage tells a
// fake guest which kernel it boots. Every arch's base image is `base_cpio`; no workload needs
// files; a machine.image recipe is a disk path (recipe "broken" fails). It counts the kernel
// builds asked of it and keeps the specs.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "runner/artifact_provider.h"

namespace foliolab {

class FakeArtifacts : public ArtifactProvider {
 public:
  Result<KernelArtifact> kernel(const KernelSpec& spec, Arch arch) override {
    ++kernel_builds;
    specs.push_back(spec);
    if (spec.name == "broken") return make_error("kernel broken: `make bzImage` failed");
    KernelArtifact k;
    auto id = build_ids.find(spec.name);
    k.build_id = !spec.build_id.empty()  ? spec.build_id
                 : id == build_ids.end() ? "b1d0000000000001"
                                         : id->second;
    k.image = std::filesystem::path("/nonexistent") / spec.name / "bzImage";
    k.version = "6.12.0";
    k.kernel_name = spec.name;
    k.arch = arch;
    return k;
  }
  Result<ImageArtifact> image(Arch) override {
    ++image_builds;
    ImageArtifact i;
    i.image_id = "1111222233334444";
    i.cpio = base_cpio;
    return i;
  }
  // Recipe "broken" fails as an image whose package Debian lacks would; any other is the disk
  // /nonexistent/rootfs/<recipe>-<arch>.ext4.
  Result<RootfsArtifact> rootfs(const std::string& recipe, Arch arch) override {
    ++rootfs_builds;
    if (recipe == "broken") {
      return make_error(
          "images/broken.yaml:3:11: packages[0]: Debian bookworm has no package "
          "'nosuch'");
    }
    RootfsArtifact r;
    r.recipe = recipe;
    r.image_id = "5555666677778888";
    r.disk = std::filesystem::path("/nonexistent/rootfs") /
             (recipe + "-" + std::string(arch_info(arch).name) + ".ext4");
    return r;
  }
  Result<std::vector<CpioEntry>> workload_files(const WorkloadSpec&, const KernelSpec&,
                                                Arch) override {
    ++workload_files_asked;
    return std::vector<CpioEntry>{};
  }
  int kernel_builds = 0;
  std::map<std::string, std::string> build_ids;  // kernel name -> its build id
  std::vector<KernelSpec> specs;
  int image_builds = 0;
  int rootfs_builds = 0;
  int workload_files_asked = 0;
  std::filesystem::path base_cpio;
};

}  // namespace foliolab
