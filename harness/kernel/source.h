// Kernel source acquisition: Debian's linux-source-6.12 tarball (the default), a user's tarball,
// or a user's directory. Each source gets a content identity and a pristine tree in the cache
// that foliolab never modifies; builds work in a private copy.
#pragma once

#include <filesystem>
#include <string>

#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct SourceInfo {
  std::string id;     // "linux-source-6.12-585a4a074597": names cache folders
  std::string label;  // for messages: "Debian linux-source-6.12 (/usr/src/...)"
  std::filesystem::path location;  // tarball or directory as given
  bool is_directory = false;
};

// The tarball Debian's linux-source-6.12 package installs ($FOLIOLAB_DEBIAN_SOURCE overrides).
std::filesystem::path debian_source_tarball();

// `spec_source` is "debian" or a path (relative paths resolve against `base_dir`).
Result<SourceInfo> identify_source(const std::string& spec_source, const std::filesystem::path& base_dir,
                                   const std::filesystem::path& cache);

// Returns the pristine tree for `src`, extracting a tarball into the cache once.
Result<std::filesystem::path> prepare_pristine(ProcessRunner& runner, const SourceInfo& src,
                                               const std::filesystem::path& cache);

// Kernel version of a tree from its top-level Makefile ("6.12.117").
Result<std::string> tree_kernel_version(const std::filesystem::path& tree);
// The kernel version a top-level Makefile's text defines ("6.12.117", "6.13.0-rc1"), or "".
std::string makefile_kernel_version(const std::string& makefile);

}  // namespace foliolab
