// Where a bisection starts when a number moved between two sessions (`bisect
// --from-change-point`, `gate --bisect`): what separates the kernel of the run before the move
// from the kernel of the run after it, as bisect's candidates.
// - One source tree (the same source id), one config, and the later kernel's patches extend the
//   earlier one's (none, or a prefix of them by content): `--series S --good-patches K`, S the
//   later kernel's series, K the earlier one's patches (known good: only what was added is
//   walked).
// - One git source at two commits, no patches on either side: `--range GOOD..BAD`.
// Anything else is an error that says what differs: the same kernel on both sides (the move is
// not the kernel's), another config, another source, patches that do not extend.
#pragma once

#include <filesystem>
#include <string>

#include "analysis/gate.h"
#include "kernel/kernel_meta.h"
#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

struct BisectOrigin {
  std::string series;        // --series: a series under patches/
  size_t good_patches = 0;   // --good-patches: the earlier kernel's patches (its first ones)
  std::string range;         // --range: "<good commit>..<bad commit>"
  std::string flag() const;  // "--series S [--good-patches K]" or "--range A..B"
};

Result<BisectOrigin> bisect_origin(const KernelMeta& good, const KernelMeta& bad);

// The kernels two run records booted, read from <cache>/kernels/<build id>/kernel.json; a
// series is named as the later run's kernel names it (`patches:`).
Result<BisectOrigin> bisect_origin(const RunRecord& good, const RunRecord& bad,
                                   const std::filesystem::path& cache);

// `gate --bisect`: the bisection of the first failing case (after --confirm: a confirmed one)
// whose baseline and candidate kernels a bisection can walk; its run's identity is the --where.
struct GateBisect {
  std::string case_name;  // "<rule> · <group>"
  std::string metric, where;
  BisectOrigin origin;
  std::vector<std::string> passed_over;  // failing cases before it, each with why not
};
Result<GateBisect> gate_bisect(const GateReport& report, const std::filesystem::path& base_dir,
                               const std::filesystem::path& cand_dir,
                               const std::filesystem::path& cache);

}  // namespace foliolab
