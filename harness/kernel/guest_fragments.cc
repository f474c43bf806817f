#include "kernel/guest_fragments.h"

namespace foliolab {

std::vector<std::string> guest_fragments(Arch arch, const GuestNeeds& needs) {
  std::vector<std::string> names = {"guest-base", std::string(arch_info(arch).config_fragment)};
  if (needs.rootfs) names.emplace_back("guest-rootfs");
  if (needs.zswap) names.emplace_back("guest-zswap");
  return names;
}

std::vector<std::string> kernel_fragments(const KernelSpec& kernel, Arch arch) {
  std::vector<std::string> names = guest_fragments(arch, kernel.needs);
  names.insert(names.end(), kernel.config.begin(), kernel.config.end());
  return names;
}

}  // namespace foliolab
