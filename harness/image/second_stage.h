// Another arch's Debian image without emulating its programs on the host (issue 20): the
// packages are unpacked here (mmdebstrap's `extract` variant runs nothing of the target arch),
// and their maintainer scripts run in a guest of that arch booted on the unpacked disk: the
// second stage, as `debootstrap --foreign` has it. The builder (image/rootfs_builder.h) decides
// which way an image is made; a SecondStage boots the guest (runner/guest_second_stage.h; a fake
// in the tests).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/arch.h"
#include "model/image_recipe.h"
#include "util/result.h"

namespace foliolab {

// How an image for an arch other than the host's is made.
//   binfmt: mmdebstrap runs the target's programs through qemu-user in a binfmt_misc of
//           foliolab's own (image/foreign_exec.h; Linux 6.7+).
//   guest:  unpacked on the host, configured in a guest of the target arch (SecondStage).
//   auto:   binfmt where the host kernel allows it, guest otherwise.
enum class ForeignPath { kAuto, kBinfmt, kGuest };
const char* foreign_path_name(ForeignPath p);
std::optional<ForeignPath> parse_foreign_path(std::string_view name);

// The folder in the image that holds the second stage's packages and script (`finish` removes it).
inline constexpr const char* kSecondStageDir = "foliolab-stage2";

// The shell script the second stage runs inside the guest (`install`, then the recipe's
// commands, then `finish`); its bytes are part of the guest way's key.
const std::string& second_stage_script();

// What the guest runs, in order: the script's `install`, the recipe's commands with the
// environment a package build has, the script's `finish`.
std::vector<std::vector<std::string>> second_stage_commands(const ImageRecipe& recipe);

class SecondStage {
 public:
  virtual ~SecondStage() = default;
  // Boots a guest of `arch` with `disk` (ext4) attached writable as its root, runs `commands`
  // (argv lists) inside it in order, powers off. Logs and the console go under `dir`. Fails
  // with the failing command's output when one exits non-zero, or when the guest does not end.
  virtual Result<void> run(Arch arch, const std::filesystem::path& disk,
                           const std::vector<std::vector<std::string>>& commands,
                           const std::filesystem::path& dir) = 0;
};

}  // namespace foliolab
