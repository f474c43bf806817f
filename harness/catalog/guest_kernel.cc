#include "catalog/guest_kernel.h"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/workload_catalog.h"
#include "util/text.h"

namespace foliolab {
namespace {

// Sysctls (paths under /proc/sys/) that exist only with an option of the full kernel.
struct FullSysctl {
  const char* prefix;
  const char* option;
};
constexpr FullSysctl kFullSysctls[] = {
    {"vm/nr_hugepages", "hugetlbfs"}, {"vm/nr_overcommit_hugepages", "hugetlbfs"},
    {"vm/hugetlb_", "hugetlbfs"},     {"vm/numa_", "NUMA"},
    {"vm/zone_reclaim_mode", "NUMA"}, {"kernel/numa_balancing", "NUMA"}};

void add_once(std::vector<std::string>& why, std::string reason) {
  if (std::find(why.begin(), why.end(), reason) == why.end()) why.push_back(std::move(reason));
}

}  // namespace

std::vector<std::string> full_guest_reasons(const Experiment& exp, Arch arch) {
  std::vector<std::string> why;
  const MachineSpec& m = exp.machine;
  if (!m.image.empty()) why.push_back("machine.image (a root filesystem on virtio-blk ext4)");
  if (m.swap.enabled()) why.push_back("machine.swap");
  if (m.zswap.enabled) why.push_back("machine.zswap");
  if (exp.state.cgroup.enabled()) why.push_back("cgroup (a memory cgroup)");
  if (any_prepare_steps(exp)) why.push_back("prepare");
  if (!m.numa.empty()) why.push_back("machine.numa");
  if (m.cpus > 1 && arch_info(arch).acpi) {
    why.push_back(fmt::format("machine.cpus: {} ({} brings its other CPUs up through ACPI)", m.cpus,
                              arch_info(arch).name));
  }
  for (const KnobSet& ks : exp.knob_sets) {
    for (const auto& [path, value] : ks.sysctls) {
      for (const FullSysctl& s : kFullSysctls) {
        if (!path.starts_with(s.prefix)) continue;
        add_once(why, fmt::format("sysctl {} ({})", path, s.option));
      }
    }
  }
  for (const WorkloadSpec& w : exp.workloads) {
    const WorkloadInfo* info = find_workload(w.name);
    if (info == nullptr || info->full_guest.empty()) continue;
    add_once(why, fmt::format("workload {}: {}", w.name, info->full_guest));
  }
  return why;
}

Result<void> settle_guest_kernels(Experiment& exp) {
  std::string problems;
  for (size_t i = 0; i < exp.kernels.size(); ++i) {
    KernelSpec& k = exp.kernels[i];
    k.full_guest.clear();
    k.tracing = exp.evidence.enabled();  // kernel-config/tracing.config, model/evidence.h
    for (Arch a : exp.archs) {
      if (!k.archs.empty() && std::find(k.archs.begin(), k.archs.end(), a) == k.archs.end())
        continue;
      if (k.guest == GuestKernel::kFull) {
        k.full_guest.push_back(a);
        continue;
      }
      const std::vector<std::string> why = full_guest_reasons(exp, a);
      if (why.empty()) continue;
      if (k.guest == GuestKernel::kSmall) {
        problems += fmt::format(
            "{}{}: kernels[{}].guest: small, but the runs on {} need the full guest kernel: {}",
            problems.empty() ? "" : "\n", k.guest_loc.str(), i, arch_info(a).name, join(why, "; "));
        continue;
      }
      k.full_guest.push_back(a);
    }
  }
  return problems.empty() ? Result<void>() : make_error(problems);
}

}  // namespace foliolab
