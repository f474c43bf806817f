#include "kernel/guest_fragments.h"

namespace foliolab {

std::vector<std::string> kernel_fragments(const KernelSpec& kernel, Arch arch) {
  std::vector<std::string> names = {"guest-base", std::string(arch_info(arch).config_fragment)};
  names.insert(names.end(), kernel.config.begin(), kernel.config.end());
  return names;
}

}  // namespace foliolab
