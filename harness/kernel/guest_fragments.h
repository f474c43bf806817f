// Which kernel-config fragments a guest kernel is built from (kernel-config/<name>.config).
#pragma once

#include <string>
#include <vector>

#include "model/arch.h"
#include "model/experiment.h"

namespace foliolab {

// The fragments of a guest kernel for `arch`, in the order the builder applies them: guest-base
// and the arch's own (x86_64, arm64), always; then the kernel's own `config:` list. One guest
// kernel serves initramfs, root-filesystem, swapping and zswap runs alike (README, "Kernel
// configs"), so an A/B of any of those compares one build.
std::vector<std::string> kernel_fragments(const KernelSpec& kernel, Arch arch);

}  // namespace foliolab
