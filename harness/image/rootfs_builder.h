// Debian root filesystems as cached ext4 disks (issue 20): a recipe (model/image_recipe.h) built
// with Debian's mmdebstrap from the archive the host's apt reaches, its files copied in and its
// commands run inside, then packed by `mkfs.ext4 -d` (no loop device, no mount) into
// <cache>/images/rootfs-<arch>-<name>-<key>/disk.ext4 beside image.json (the package manifest).
//
// The key covers the recipe's bytes, the bytes of every file it copies in, the arch and
// mmdebstrap's version; the image id also covers the package versions the build got
// (image.json's manifest), so two builds of one recipe on different archive days differ in id.
// A build happens in <cache>/tmp/ and is renamed into place only when complete: a failed or
// killed build leaves nothing that a later lookup would take. Another arch's programs run
// through image/foreign_exec.h (a private binfmt_misc, qemu-user-static), never the host's.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/image_recipe.h"
#include "util/fs.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct RootfsArtifact {
  std::string recipe;    // the recipe's name
  std::string image_id;  // 16 hex digits over the key and the package manifest
  std::filesystem::path disk;
  std::filesystem::path dir;
  size_t packages = 0;  // installed, from the manifest
  bool cache_hit = false;
  double build_seconds = 0;
  // A shared lock on the item's .use.lock while any copy lives: `cache gc` leaves it alone.
  std::shared_ptr<FileLock> hold;
};

struct RootfsLookup {
  std::string key;
  bool cached = false;
};

struct RootfsBuildOptions {
  std::filesystem::path cache;
  // The foliolab binary, for `__foreign-exec` (another arch's programs).
  std::filesystem::path self_exe;
  std::chrono::seconds timeout{3600};  // mmdebstrap, and each recipe command
};

class RootfsBuilder {
 public:
  RootfsBuilder(ProcessRunner& runner, RootfsBuildOptions options);
  Result<RootfsArtifact> build(const ImageRecipe& recipe, Arch arch);
  // What build() would find, without building anything.
  Result<RootfsLookup> lookup(const ImageRecipe& recipe, Arch arch);

 private:
  Result<std::string> key(const ImageRecipe& recipe, Arch arch);
  Status populate(const ImageRecipe& recipe, Arch arch, const std::filesystem::path& root,
                  const std::filesystem::path& log);
  Status make(const ImageRecipe& recipe, Arch arch, const std::string& key,
              const std::filesystem::path& tmp, RootfsArtifact& art);
  Result<uint64_t> pack(const ImageRecipe& recipe, Arch arch, const std::string& key,
                        const std::filesystem::path& tmp);
  Status run_step(const ImageRecipe& recipe, Arch arch, const std::string& what,
                  std::vector<std::string> argv, const std::filesystem::path& log);
  ProcessRunner& runner_;
  RootfsBuildOptions opt_;
};

// name -> version of each package dpkg's status file says is installed, sorted by name.
using Manifest = std::vector<std::pair<std::string, std::string>>;
Manifest installed_packages(std::string_view status);

// The ext4 size in MiB for `used_bytes` of files: a quarter more for ext4's own metadata and
// small-file rounding, plus the recipe's free space.
uint64_t rootfs_disk_mib(uint64_t used_bytes, uint64_t free_mib);

}  // namespace foliolab
