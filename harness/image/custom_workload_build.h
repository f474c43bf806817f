// Building a `custom` workload's binary on the host, cached under <cache>/custom/.
//
// C sources (params.source: one file or a list) are compiled one by one with -MD, then linked
// static. The cache entry is found by a key over the compiler, the arch and each source's path
// and bytes; it records every file the compiler read (the union of the depfiles: the sources,
// the user's own headers, the libc headers) with its SHA-256, beside the binary. A lookup
// re-hashes those files and rebuilds when one differs, so an edited #include'd header is never
// silently ignored. (Hashing the preprocessed source instead would cost a preprocessor run per
// source on every lookup; the recorded inputs cost one read of each file, as ccache's direct
// mode does.)
//
// A build command (params.build: {command, dir, output}) runs on the host in a fresh copy of
// `dir` (so the user's tree is never written and each arch builds from clean), with CC,
// CROSS_COMPILE, ARCH and LDFLAGS=-static in its environment; `output`, relative to `dir`, is
// the binary that ships. It is cached by the command, that environment, the compiler and every
// file under `dir` except `output` (paths and bytes).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/arch.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct CustomBuildContext {
  ProcessRunner& runner;
  Arch arch;
  std::filesystem::path spec_dir;  // relative paths are read from here
  std::filesystem::path cache;     // the cache root
  std::string label;               // the workload's, for messages
};

// The cached (or freshly built) binary for `sources`.
Result<std::filesystem::path> compile_custom_sources(const CustomBuildContext& c,
                                                     const std::vector<std::string>& sources);

// The cached (or freshly built) output of a build command.
Result<std::filesystem::path> run_custom_build(const CustomBuildContext& c,
                                               const WorkloadSpec::Build& build);

// `p` as given when absolute, else under spec_dir; normalized.
std::filesystem::path resolve_spec_path(const std::filesystem::path& spec_dir,
                                        const std::string& p);

// The prerequisites a make-style depfile lists (targets dropped; `\ `, `$$` and line
// continuations undone).
std::vector<std::string> depfile_inputs(std::string_view text);

}  // namespace foliolab
