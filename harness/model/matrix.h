// Matrix expansion: an Experiment becomes the ordered list of Runs (guest boots) it asks for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/experiment.h"

namespace foliolab {

// Cartesian product in the order kernels, archs, knob sets, workloads (outermost first), so
// the runs of one kernel build (kernel × arch) are adjacent.
//
// Run::id is "<arch>.<kernel>.<knob set>.<workload label>" slugified, then "." and the first
// 8 hex digits of a SHA-256 over a canonical serialization of everything that decides the
// run's outcome: the kernel spec (name, source as written, config fragments in order, options,
// patches, cmdline), arch, machine, the knob set (name, knobs, sysctls, cmdline), the workload
// (name, label, params) and repeat. Unordered maps (options, knobs, sysctls, params) are
// sorted first, so reordering YAML keys keeps ids; the experiment's name, description and
// timeout are not part of it, so one run keeps its id across experiment files.
// Note: "source: <path>" is hashed as written, not the tree's content.
//
// Filters drop runs without changing the ids of the others: a kernel's `archs:` (only those
// archs) and the top-level `exclude:` entries (see is_excluded).
std::vector<Run> expand(const Experiment& exp);

// True when the run's kernel is restricted to other archs or an `exclude:` entry matches it.
bool is_excluded(const Experiment& exp, const Run& run);

// kernels × archs × knob sets × workloads, before filters.
size_t full_product(const Experiment& exp);

// The canonical serialization that Run ids hash (exposed for tests and provenance).
std::string run_identity(const Experiment& exp, const Run& run);

// A run's machine state in one line, in the order the guest makes it: swap, zswap, cgroup, then
// the prepare steps (the experiment's, then its knob set's): "swap zram 256M lz4, zswap lz4,
// cgroup memory.max=32M, fragment thpscale seed 3 pinned, reclaim 64M"; "fresh" for none.
std::string machine_state_text(const Experiment& exp, const Run& run);

// A readable plan: one header line with the counts
// ("quickstart: 1 kernel × 2 archs × 2 knob sets × 1 workload = 4 runs, 3 repetitions each";
// "= 3 runs (1 excluded), ..." when filters drop runs of the full product)
// and a table of run id, kernel, arch, knob set, workload and params; beside the id, the run's
// machine state (machine_state_text) when some run of the plan has one.
std::string format_plan(const Experiment& exp, const std::vector<Run>& runs);

}  // namespace foliolab
