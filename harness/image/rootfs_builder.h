// Debian root filesystems as cached ext4 disks (issue 20): a recipe (model/image_recipe.h) built
// with Debian's mmdebstrap from the archive the host's apt reaches, its files copied in and its
// commands run inside, then packed by `mkfs.ext4 -d` (no loop device, no mount) into
// <cache>/images/rootfs-<arch>-<name>-<key>/disk.ext4 beside image.json (the package manifest).
//
// The key covers the recipe's bytes, the bytes of every file it copies in, the arch and
// mmdebstrap's version; the image id also covers the package versions the build got
// (image.json's manifest), so two builds of one recipe on different archive days differ in id.
// A build happens in <cache>/tmp/ and is renamed into place only when complete: a failed or
// killed build leaves nothing that a later lookup would take. Another arch's image is made one of
// two ways (image/second_stage.h): its programs run through image/foreign_exec.h (a private
// binfmt_misc, qemu-user-static, never the host's), or its packages are unpacked here and
// configured in a guest of that arch (the second stage).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "image/second_stage.h"
#include "model/arch.h"
#include "model/image_recipe.h"
#include "util/file_lock.h"
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
  std::chrono::seconds timeout{3600};  // mmdebstrap, each recipe command, the second stage
  ForeignPath foreign = ForeignPath::kAuto;
  // Boots the second stage (ForeignPath::kGuest); null: that way is not available.
  SecondStage* second_stage = nullptr;
};

class RootfsBuilder {
 public:
  RootfsBuilder(ProcessRunner& runner, RootfsBuildOptions options);
  Result<RootfsArtifact> build(const ImageRecipe& recipe, Arch arch);
  // What build() would find, without building anything.
  Result<RootfsLookup> lookup(const ImageRecipe& recipe, Arch arch);
  // How an image for `arch` is made here: native (the host's arch), kBinfmt or kGuest.
  enum class Way { kNative, kBinfmt, kGuest };
  Way way(Arch arch) const;

 private:
  Result<std::string> key(const ImageRecipe& recipe, Arch arch);
  Result<void> populate(const ImageRecipe& recipe, Arch arch, const std::filesystem::path& root,
                        const std::filesystem::path& log);
  Result<void> copy_files(const ImageRecipe& recipe, const std::filesystem::path& root);
  Result<void> make(const ImageRecipe& recipe, Arch arch, const std::string& key,
                    const std::filesystem::path& tmp, RootfsArtifact& art);
  // The tree built by mmdebstrap on the host, packed: tmp/disk.ext4, dpkg's status text.
  Result<std::string> make_on_host(const ImageRecipe& recipe, Arch arch, const std::string& key,
                                   const std::filesystem::path& tmp, uint64_t& mib);
  // The second stage's way (rootfs_guest.cc): unpack, pack, configure in a guest, check.
  Result<std::string> make_in_guest(const ImageRecipe& recipe, Arch arch, const std::string& key,
                                    const std::filesystem::path& tmp, uint64_t& mib);
  Result<uint64_t> unpack_for_guest(const ImageRecipe& recipe, Arch arch,
                                    const std::filesystem::path& tmp);
  Result<std::string> read_disk_status(const ImageRecipe& recipe, Arch arch,
                                       const std::filesystem::path& tmp);
  // tmp/root packed into tmp/disk.ext4 with `extra_bytes` more room than its files need.
  Result<uint64_t> pack(const ImageRecipe& recipe, Arch arch, const std::string& key,
                        const std::filesystem::path& tmp, uint64_t extra_bytes = 0);
  // argv run on the host (through `__foreign-exec` when `emulate` and arch is not the host's).
  Result<void> run_step(const ImageRecipe& recipe, Arch arch, const std::string& what,
                        std::vector<std::string> argv, const std::filesystem::path& log,
                        bool emulate = true);
  ProcessRunner& runner_;
  RootfsBuildOptions opt_;
};

// How `image.json` and `foliolab image` name a way ("native", ...).
const char* way_name(RootfsBuilder::Way w);

// name -> version of each package dpkg's status file says is installed, sorted by name.
using Manifest = std::vector<std::pair<std::string, std::string>>;
Manifest installed_packages(std::string_view status);

// The ext4 size in MiB for `used_bytes` of files: a quarter more for ext4's own metadata and
// small-file rounding, plus the recipe's free space.
uint64_t rootfs_disk_mib(uint64_t used_bytes, uint64_t free_mib);

}  // namespace foliolab
