// Kernel source acquisition: Debian's linux-source-6.12 tarball (the default), a user's tarball,
// a user's directory or a local git repository at a ref. Each source gets a content identity
// (for the cache key) and a working tree name (where builds happen); foliolab never modifies a
// user's tree: builds work in a private copy.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "kernel/tree_sync.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

enum class SourceKind { kTarball, kDirectory, kGit };

struct SourceInfo {
  SourceKind kind = SourceKind::kTarball;
  std::string id;       // content identity, part of the cache key: "linux-source-6.12-585a4a074597"
  std::string work_id;  // names the working tree: one per tarball, directory path or repository
  std::string label;    // for messages: "Debian linux-source-6.12 (/usr/src/...)"
  std::filesystem::path location;  // tarball, directory or repository as given
  bool is_directory() const { return kind == SourceKind::kDirectory; }
  // Git: the ref asked for and its commit; for a checkout built as it is, HEAD and whether
  // tracked files had uncommitted changes.
  std::string git_ref, git_commit;
  bool git_dirty = false;
  // Directory sources: the scan the identity was computed from (the sync copies from it).
  std::shared_ptr<const TreeIndex> index;
  // One line for run records and reports: "git /src/linux @ 1a2b3c4d5e6f (ref my-branch)".
  std::string describe() const;
};

// The tarball Debian's linux-source-6.12 package installs ($FOLIOLAB_DEBIAN_SOURCE overrides).
std::filesystem::path debian_source_tarball();

// Identifies the kernel's source: "debian", a tarball, a directory or a git repository
// (relative paths resolve against `base_dir`). A directory is fingerprinted by content with
// stat data remembered in `<cache>/work/<work id>/source.index`.
Result<SourceInfo> identify_source(ProcessRunner& runner, const KernelSpec& spec,
                                   const std::filesystem::path& base_dir,
                                   const std::filesystem::path& cache);

// Returns the pristine tree for a tarball, extracting it into the cache once; a directory or
// repository as it is.
Result<std::filesystem::path> prepare_pristine(ProcessRunner& runner, const SourceInfo& src,
                                               const std::filesystem::path& cache);

// Kernel version of a tree from its top-level Makefile ("6.12.117").
Result<std::string> tree_kernel_version(const std::filesystem::path& tree);
// The kernel version a top-level Makefile's text defines ("6.12.117", "6.13.0-rc1"), or "".
std::string makefile_kernel_version(const std::string& makefile);

}  // namespace foliolab
