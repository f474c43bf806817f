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
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KernelTree {
  SourceInfo source;
  std::optional<Series> series;
  std::string tree_key;  // hash of the source identity and every patch's name and bytes
};

// The tree `spec` builds from: its source (relative paths resolve against spec_dir) and its
// series (a folder under <project_root>/patches).
Result<KernelTree> resolve_kernel_tree(const KernelSpec& spec, const std::filesystem::path& project_root,
                                       const std::filesystem::path& spec_dir, const std::filesystem::path& cache);

// Makes <work>/tree hold `tree` (the pristine source + its series), reusing what is there:
// files the previous series touched are restored with a fresh mtime, so make rebuilds them in a
// reused O= directory. <work>/applied.json records the state. The caller holds <work>.lock.
Status checkout_kernel_tree(ProcessRunner& runner, const KernelTree& tree, const std::filesystem::path& pristine,
                            const std::filesystem::path& work);

}  // namespace foliolab
