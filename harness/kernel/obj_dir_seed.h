// Seeding a new O= directory (a config this source and arch never built) from the nearest
// built sibling, so that make rebuilds only what the options that differ reach
// (KernelBuilder::build: plan -> configure -> seed -> kbuild). The copy gets its own .config and
// configuring stamp back, newer than the copied include/config/auto.conf: make's syncconfig
// touches include/config/<OPTION> for the options that differ, and fixdep rebuilds exactly the
// objects whose sources test them, where ccache in depend mode would miss on every file (its
// hash includes autoconf.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "util/process.h"
#include "util/result.h"

namespace foliolab {

// An O= directory's name ends with this many hex digits of its config key (KernelBuilder::plan);
// its siblings of the same source and arch differ from it only there.
inline constexpr size_t kObjDirKeyDigits = 12;

// Beside the O= directory's .config: what configured it (the plan's config key and the tree's
// Kconfig inputs, one digest) and the digest of the .config it left, one per line.
inline constexpr const char* kConfigStampFile = ".foliolab-configured";

// A new O= directory is seeded from a built sibling whose .config is at most this many options
// away. A one-option A/B (a THP default, MGLRU) moves a handful through select and depends; the
// small and the full guest kernel are hundreds apart, where nearly every object recompiles and
// the copy would be wasted.
inline constexpr size_t kSeedMaxDistance = 50;

// Where a seeded O= directory was copied from.
struct ObjDirSeed {
  std::filesystem::path from;
  size_t distance = 0;  // options apart in the two .configs
};

// Makes the new O= directory `obj`, configured to `dotconfig` with its stamp written, a copy of
// the nearest built sibling (the fewest options apart, the last built on a tie), then gives it
// its .config and stamp back. nullopt when no sibling is within kSeedMaxDistance; `obj` is then
// left as it was. The caller holds the work tree's lock, so no sibling is being built meanwhile.
// Errors name `label`.
Result<std::optional<ObjDirSeed>> seed_from_nearest_sibling(ProcessRunner& runner,
                                                            const std::filesystem::path& obj,
                                                            const std::string& dotconfig,
                                                            const std::string& label);

}  // namespace foliolab
