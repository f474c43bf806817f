// A kernel tree as a run boots it: a source plus an optional patch series, named by the hash of
// both (`tree_key`). The kernel builder and the kselftest builder check it out the same way, so
// programs built from the tree see exactly the headers and sources the kernel was built from.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "kernel/series.h"
#include "kernel/source.h"
#include "model/experiment.h"
#include "model/project.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KernelTree {
  SourceInfo source;
  std::optional<Series> series;
  std::string tree_key;  // hash of the source identity and every patch's diff (series_digest)
};

// The tree `spec` builds from: its source (a tarball, a directory or a git ref; relative paths
// resolve against spec_dir) and its series (a quilt or format-patch folder or an mbox under
// patches/ of the project or of foliolab's data, see model/project.h; or a commit range).
Result<KernelTree> resolve_kernel_tree(ProcessRunner& runner, const KernelSpec& spec,
                                       const SearchPath& names,
                                       const std::filesystem::path& spec_dir,
                                       const std::filesystem::path& cache);

// Makes <work>/tree hold `tree` (the source + its series), reusing what is there so make rebuilds
// only the difference in a reused O= directory: a tarball's tree restores the files the previous
// series touched (<work>/applied.json); a directory source is synced file by file from the user's
// tree (<work>/tree.index); a git source rewrites the files that differ between commits
// (<work>/checkout.json). The caller holds <work>.lock.
Result<void> checkout_kernel_tree(ProcessRunner& runner, const KernelTree& tree,
                                  const std::filesystem::path& pristine,
                                  const std::filesystem::path& work);

}  // namespace foliolab
