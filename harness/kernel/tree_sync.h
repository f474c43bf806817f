// Incremental mirroring of a user's source tree into a foliolab working tree.
//
// A scan records every regular file and symlink (path, kind, exec bit, content digest) with its
// stat data; a later scan hashes only the files whose stat data changed, so fingerprinting an
// unchanged 90,000-file kernel tree costs one pass of lstat. A sync copies only entries whose
// content or kind differ, removes entries the source no longer has and fixes exec bits, so the
// files make sees as new are exactly the ones that changed. The source tree is only read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct TreeEntry {
  bool symlink = false;
  bool exec = false;
  std::string digest;  // SHA-256 of the content (of the target for a symlink)
  // Stat data that lets a later scan reuse `digest`.
  uint64_t size = 0, ino = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool same_content(const TreeEntry& o) const { return symlink == o.symlink && digest == o.digest; }
};
using TreeIndex = std::map<std::string, TreeEntry>;  // by path relative to the root

struct TreeScan {
  TreeIndex index;
  std::vector<std::string> build_outputs;  // in-tree build results found (relative paths)
  size_t hashed = 0;                       // files whose content had to be read
};

// Top-level names that belong to foliolab inside a working tree (the O= build directories);
// scans skip them, syncs never remove them.
inline constexpr const char* kBuildDirPrefix = ".foliolab-o-";

// Walks `root` (skipping `.git` anywhere and top-level kBuildDirPrefix folders).
Result<TreeScan> scan_tree(const std::filesystem::path& root, const TreeIndex& previous);

// Identity of the content only (paths, kinds, exec bits, digests): equal trees, equal prints.
std::string tree_fingerprint(const TreeIndex& index);

// True for paths kbuild writes when building in the tree (".config", "mm/memory.o",
// "include/generated/...").
bool is_build_output(const std::string& rel);

// "kernel source X holds build outputs (...): clean it with `make -C X mrproper`".
std::string describe_build_outputs(const std::filesystem::path& root,
                                   const std::vector<std::string>& outputs);

// Stored form (one line per entry, tab separated); a missing or unreadable file is an empty index.
TreeIndex load_tree_index(const std::filesystem::path& file);
Result<void> save_tree_index(const std::filesystem::path& file, const TreeIndex& index);

struct SyncStats {
  size_t copied = 0, removed = 0, mode_changed = 0;
  std::vector<std::string> changed;  // paths copied, removed or re-moded
};

// Makes `to` hold what `from` holds, given indexes of both (from scans). Copies get a fresh mtime.
Result<SyncStats> sync_tree(const std::filesystem::path& from, const TreeIndex& from_index,
                            const std::filesystem::path& to, const TreeIndex& to_index);

}  // namespace foliolab
