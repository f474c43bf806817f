// Which kernel-config fragments a guest kernel is built from (kernel-config/<name>.config).
#pragma once

#include <string>
#include <vector>

#include "model/arch.h"
#include "model/experiment.h"

namespace foliolab {

// The fragments every guest kernel of `arch` is built from, in order: guest-base, the arch's own
// (x86_64, arm64), then what the experiment's guests need (GuestNeeds): guest-rootfs (ext4,
// TCP/IP loopback) and guest-zswap. The small kernel is the first two alone.
std::vector<std::string> guest_fragments(Arch arch, const GuestNeeds& needs);

// guest_fragments, then the kernel's own `config:` list, as the builder applies them.
std::vector<std::string> kernel_fragments(const KernelSpec& kernel, Arch arch);

}  // namespace foliolab
