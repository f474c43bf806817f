#include "model/arch.h"

#include <array>

namespace foliolab {
namespace {

constexpr std::array<ArchInfo, 2> kArchs = {{
    {Arch::kX86_64, "x86_64", "x86_64", "", "bzImage", "arch/x86/boot/bzImage", "x86_64",
     "qemu-system-x86_64", "q35", "max", "ttyS0", "gcc", "x86_64"},
    {Arch::kArm64, "arm64", "arm64", "aarch64-linux-gnu-", "Image", "arch/arm64/boot/Image",
     "arm64", "qemu-system-aarch64", "virt", "max", "ttyAMA0", "aarch64-linux-gnu-gcc",
     "aarch64"},
}};

}  // namespace

std::span<const ArchInfo> all_archs() { return kArchs; }

const ArchInfo& arch_info(Arch arch) {
  for (const auto& info : kArchs) {
    if (info.arch == arch) return info;
  }
  return kArchs[0];
}

std::optional<Arch> parse_arch(std::string_view name) {
  for (const auto& info : kArchs) {
    if (info.name == name) return info.arch;
  }
  if (name == "aarch64") return Arch::kArm64;
  if (name == "amd64" || name == "x86-64") return Arch::kX86_64;
  return std::nullopt;
}

Arch host_arch() {
#if defined(__aarch64__)
  return Arch::kArm64;
#else
  return Arch::kX86_64;
#endif
}

}  // namespace foliolab
