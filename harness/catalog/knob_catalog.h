// What a kernel offers under /sys/kernel/mm/transparent_hugepage/, so that knob values can be
// checked before a kernel is built or booted. Facts are taken from Linux 6.12's sources
// (mm/huge_memory.c, mm/shmem.c, mm/khugepaged.c, include/linux/huge_mm.h); other kernel
// versions are not described and always pass (the guest agent checks every write anyway).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

struct KernelFacts {
  std::string version;   // "6.12"; anything else is not described
  int page_size_kb = 4;  // 4, 16 or 64
  // A patch series may add knobs: unknown paths are accepted, except in hugepages-<N>kB/
  // (which sizes exist and what they hold follows from the page size, not from patches).
  bool patched = false;
};

enum class KnobKind {
  kChoice,    // one word of `choices` (sysfs_streq)
  kUnsigned,  // decimal in min..max (kstrtoul / kstrtouint)
  kBool,      // kstrtobool: 0/1, y/n, on/off, ...
  kReadOnly,  // mode 0444
};

struct KnobFile {
  std::string path;  // relative to /sys/kernel/mm/transparent_hugepage/
  KnobKind kind = KnobKind::kReadOnly;
  std::vector<std::string> choices;  // kChoice
  uint64_t min = 0, max = 0;         // kUnsigned, inclusive
};

// Every file of the THP sysfs tree of that kernel (CONFIG_SHMEM=y), including per-size
// stats/; empty for kernels that are not described.
std::vector<KnobFile> thp_knob_files(const KernelFacts& facts);

// Size in kB of each per-size directory (hugepages-<N>kB) with an anonymous `enabled` file,
// and with a `shmem_enabled` file, ascending.
std::vector<uint64_t> anon_mthp_sizes_kb(const KernelFacts& facts);
std::vector<uint64_t> shmem_mthp_sizes_kb(const KernelFacts& facts);

// Whether writing `value` to `rel_path` would be accepted. The message carries no location:
// "'alway' is not offered by Linux 6.12 (always inherit madvise never); did you mean 'always'?"
Result<void> check_knob(const std::string& rel_path, const std::string& value,
                        const KernelFacts& facts);

// What is known of a kernel built for `arch` before building it: "debian" sources are Linux
// 6.12 with 64K pages on arm64 when the config list holds "arm64-64k", else 4K pages.
std::optional<KernelFacts> kernel_facts(const KernelSpec& kernel, Arch arch);

// check_knob for every knob of every (kernel, arch, knob set) that expand() keeps, for kernels
// whose facts are known. One problem per line: "file:line:col: knobs["64K"].<path>: <message>
// (kernel 6.12-mthp-vmstat, arm64)".
Result<void> validate_knobs(const Experiment& exp);

}  // namespace foliolab
