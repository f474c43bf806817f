#include "kernel/guest_fragments.h"

#include <algorithm>

namespace foliolab {

bool is_full_guest(const KernelSpec& kernel, Arch arch) {
  return std::find(kernel.full_guest.begin(), kernel.full_guest.end(), arch) !=
         kernel.full_guest.end();
}

std::vector<std::string> kernel_fragments(const KernelSpec& kernel, Arch arch) {
  const ArchInfo& ai = arch_info(arch);
  std::vector<std::string> names = {"guest-base", std::string(ai.config_fragment)};
  if (is_full_guest(kernel, arch)) {
    names.emplace_back(kFullGuestFragment);
    if (!ai.full_config_fragment.empty()) names.emplace_back(ai.full_config_fragment);
  }
  if (kernel.tracing) names.emplace_back(kTracingFragment);
  names.insert(names.end(), kernel.config.begin(), kernel.config.end());
  return names;
}

}  // namespace foliolab
