// Which guest kernel an experiment's runs boot: the small one (kernel-config/guest-base.config
// and the arch's fragment: the agent, the C workloads, THP and mTHP with their counters) unless
// a run needs what only the full one has (guest-full, x86_64-full: block and ext4, sockets,
// cgroups, swap, zram and zswap, NUMA, debugfs and the selftests' options, ACPI on x86_64). A
// newcomer's quickstart, the seeds without NUMA and count-only bisections build the small one.
#pragma once

#include <string>
#include <vector>

#include "model/arch.h"
#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// Why the runs of `exp` need the full guest kernel on `arch`, one reason each ("machine.image",
// "workload kselftest-mm: debugfs, userfaultfd and hugetlbfs"); empty: the small kernel serves.
// A kernel's own `guest:` is not among them.
std::vector<std::string> full_guest_reasons(const Experiment& exp, Arch arch);

// Sets every kernel's `full_guest` archs: those its `guest: full` asks for, else those whose runs
// need it; and its `tracing` when the experiment asks for `evidence:`. A kernel that says `guest:
// small` where a run needs more is a located error naming the reasons (at plan, before anything is
// built).
Result<void> settle_guest_kernels(Experiment& exp);

}  // namespace foliolab
