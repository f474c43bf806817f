// Builds the `kselftest-mm` programs, and tools/mm/thp_swap_allocator_test for the
// `thp-swap-allocator` workload (catalog/kselftest_catalog.h), static for the guest arch from
// the same source tree and patch series the run's kernel is built from, and ships them in the
// run's job archive as /job/kselftest/<name> (+ <name>.args), where workloads/kselftest-mm.c
// runs them.
//
// Why not the selftests Makefile: it wants the UAPI headers inside the source tree
// (KHDR_INCLUDES = <tree>/usr/include; the builder's tree must stay clean for O= builds),
// probes liburing with the compiler it is given, and builds every mm test, some of which link
// -lnuma and -lcap (no arm64 static libraries here). Here: `make headers` into a private O=
// directory (from a private checkout of the tree, so a kernel build holding the builder's tree
// is never waited for), then one compiler call per program with the flags the Makefile uses
// (-Wall -O2 -U_FORTIFY_SOURCE, -isystem UAPI headers, -isystem tools/include/uapi, helpers
// vm_util.c thp_settings.c, -lrt -lpthread -lm), plus -static and no liburing.
//
// Cache: <cache>/kselftest/<key>/<arch>/ keyed by the tree's content (source id + every
// patch), the arch, the compiler version, the flags and the program table. Every program of
// the table that the tree has is built once; one the tree lacks (uffd-wp-mremap before 6.14)
// is recorded with the reason and is an error only when a run asks for it.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "image/cpio.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KselftestBuildOptions {
  std::filesystem::path data_root;  // foliolab's data: patches/
  std::filesystem::path project;    // the experiment's project: its patches/ come first
  std::filesystem::path spec_dir;   // relative kernel sources resolve here
  std::filesystem::path cache;
};

struct KselftestBuild {
  std::filesystem::path dir;                   // the programs
  std::map<std::string, std::string> missing;  // program -> why it was not built
  bool cache_hit = false;
};

class KselftestBuilder {
 public:
  KselftestBuilder(ProcessRunner& runner, KselftestBuildOptions options);
  Result<KselftestBuild> build(const KernelSpec& kernel, Arch arch);

  // Job archive entries for `w` (empty unless it is kselftest-mm or thp-swap-allocator): its
  // programs and arguments.
  Result<std::vector<CpioEntry>> job_files(const WorkloadSpec& w, const KernelSpec& kernel,
                                           Arch arch);

 private:
  Result<void> compile_all(const std::filesystem::path& tree, Arch arch,
                           const std::filesystem::path& out, KselftestBuild& build);
  ProcessRunner& runner_;
  KselftestBuildOptions opt_;
};

// The compiler's argv for one program (pure; tested): sources from <tree>/<dir> (tools/testing/
// selftests/mm, or tools/mm), UAPI headers from `uapi`/include (`make headers` leaves them in
// <O=>/usr) and `gen` (holds local_config.h).
std::vector<std::string> kselftest_compile_argv(
    const std::string& cc, const std::filesystem::path& tree, const std::filesystem::path& uapi,
    const std::filesystem::path& gen, const std::string& dir, const std::string& program,
    const std::vector<std::string>& helpers, const std::filesystem::path& out);

}  // namespace foliolab
