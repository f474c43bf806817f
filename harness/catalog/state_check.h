// The plan-time checks of an experiment's machine state (model/machine_state.h): what the run's
// kernel and backend can do, before anything is built or booted.
#pragma once

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// The highest buddy order (MAX_PAGE_ORDER) of a guest kernel with this base page size:
// 10 at 4K, 11 at 16K, 13 at 64K (arch/arm64/Kconfig's ARCH_FORCE_MAX_ORDER defaults).
int max_page_order(int page_size_kb);

// One problem per line, each "file:line:col: key: message":
// - swap, zswap, cgroup and prepare need backend qemu (the host backend would change this
//   machine's own state; libvirt does not attach a swap disk yet);
// - a fragment order beyond the max order of a run's page size, and thpscale on a kernel whose
//   PMD size (512M at 64K pages) cannot fill a guest;
// - a fragment reserve or a reclaim at least the guest's memory;
// - a workload that makes its own memory cgroup (memcg-stress, kbuild) under `cgroup:`;
// - memcg.* monitor counters without `cgroup:`.
Result<void> check_machine_state(const Experiment& exp);

}  // namespace foliolab
