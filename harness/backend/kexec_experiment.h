// What an experiment run by the kexec backend needs and cannot have, settled before anything is
// built or booted (run, gate, bisect and plan alike):
// - refused with the place in the file: machine.image (a root filesystem disk), machine.swap
//   type disk and the churn step's scratch disk (QEMU attaches those; a lab machine has its own
//   disks, which foliolab does not write to). swap type zram, the other prepare steps and
//   cgroups work as in a guest. machine.timing icount is refused by the backend's needs;
// - every kernel gets foliolab's kexec fragment (kernel-config/kexec.config: the network for the
//   record channel, a bzImage) and then the fragments of every host of the pool (its NIC and
//   disk drivers), merged: kernels are built before runs go to hosts, so one kernel serves all;
// - a host without power_cycle is a warning: a kernel that hangs there leaves it down, and the
//   pool goes on without it.
#pragma once

#include <string>
#include <vector>

#include "backend/host_pool.h"
#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// The fragment every kexec kernel gets (kernel-config/<name>.config).
inline constexpr const char* kKexecFragment = "kexec";

// Refusals, fragments and warnings as above; first, every machine's ssh:// URI is checked
// (parse_ssh_uri), machine.connect's refusals naming its file:line:col; `hosts` are the pool's (one
// for machine.connect).
Result<std::vector<std::string>> settle_kexec_experiment(Experiment& exp,
                                                         const std::vector<PoolHost>& hosts);

}  // namespace foliolab
