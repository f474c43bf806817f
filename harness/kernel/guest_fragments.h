// Which kernel-config fragments a guest kernel is built from (kernel-config/<name>.config).
#pragma once

#include <string>
#include <vector>

#include "model/arch.h"
#include "model/experiment.h"

namespace foliolab {

// The fragments of a guest kernel for `arch`, in the order the builder applies them: guest-base
// and the arch's own (x86_64, arm64), always; guest-full and the arch's full fragment
// (x86_64-full) when the kernel is the full guest kernel on `arch` (KernelSpec::full_guest,
// settled from the experiment by catalog/guest_kernel.h); tracing when its experiment asks for
// kernel evidence (KernelSpec::tracing, model/evidence.h); then the kernel's own `config:` list.
// The small kernel serves initramfs runs of the C workloads; one full kernel per arch serves
// root-filesystem, swapping, zswap, cgroup, NUMA and selftest runs alike (docs/kernels.md),
// so an A/B of any of those compares one build.
std::vector<std::string> kernel_fragments(const KernelSpec& kernel, Arch arch);

// The fragment that makes a guest kernel the full one (kernel-config/guest-full.config); a
// kernel.json whose config requests name it as their origin is a full kernel's.
inline constexpr const char* kFullGuestFragment = "guest-full";

// Whether `kernel` is built as the full guest kernel on `arch`.
bool is_full_guest(const KernelSpec& kernel, Arch arch);

}  // namespace foliolab
