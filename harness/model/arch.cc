#include "model/arch.h"

#include <algorithm>
#include <array>

namespace foliolab {
namespace {

// A spelling of x86_64 some tools use.
constexpr std::string_view kX86_64Hyphen = "x86-64";

constexpr PageSizeChoice kArm64PageSizes[] = {
    {.kb = 64, .fragment = "arm64-64k", .option = "CONFIG_ARM64_64K_PAGES"},
    {.kb = 16, .fragment = "arm64-16k", .option = "CONFIG_ARM64_16K_PAGES"},
};

constexpr std::array<ArchInfo, 2> kArchs = {{
    {
        .arch = Arch::kX86_64,
        .name = "x86_64",
        .kernel_arch = "x86_64",
        .cross_prefix = "",
        .kernel_cc = "gcc",
        .image_target = "bzImage",
        .image_path = "arch/x86/boot/bzImage",
        .direct_boot_image = "vmlinux",
        .direct_boot_option = "CONFIG_PVH",
        .config_fragment = "x86_64",
        .full_config_fragment = "x86_64-full",
        .qemu_binary = "qemu-system-x86_64",
        .qemu_machine = "q35",
        .qemu_cpu = "max",
        .console = "ttyS0",
        .guest_cc = "gcc",
        .uname_machine = "x86_64",
        .debian_arch = "amd64",
        .qemu_user = "qemu-x86_64-static",
        .binfmt_magic =
            R"(\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00)",
        .binfmt_mask =
            R"(\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff)",
        .elf_machine = 62,
        .acpi = true,
        .virtio_mmio = false,
        .kvm_smoke = true,
        .base_page_kb = 4,
        .page_sizes = {},
    },
    {
        .arch = Arch::kArm64,
        .name = "arm64",
        .kernel_arch = "arm64",
        .cross_prefix = "aarch64-linux-gnu-",
        .kernel_cc = "aarch64-linux-gnu-gcc",
        .image_target = "Image",
        .image_path = "arch/arm64/boot/Image",
        .direct_boot_image = "",
        .direct_boot_option = "",
        .config_fragment = "arm64",
        .full_config_fragment = "",
        .qemu_binary = "qemu-system-aarch64",
        .qemu_machine = "virt",
        .qemu_cpu = "max",
        .console = "ttyAMA0",
        .guest_cc = "aarch64-linux-gnu-gcc",
        .uname_machine = "aarch64",
        .debian_arch = "arm64",
        .qemu_user = "qemu-aarch64-static",
        .binfmt_magic =
            R"(\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00)",
        .binfmt_mask =
            R"(\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff)",
        .elf_machine = 183,
        .acpi = false,
        .virtio_mmio = true,
        .kvm_smoke = false,
        .base_page_kb = 4,
        .page_sizes = kArm64PageSizes,
    },
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
  // What uname -m and Debian call it.
  for (const auto& info : kArchs) {
    if (info.uname_machine == name || info.debian_arch == name) return info.arch;
  }
  if (name == kX86_64Hyphen) return Arch::kX86_64;
  return std::nullopt;
}

std::vector<std::string> arch_spellings() {
  std::vector<std::string> out;
  const auto add = [&](std::string_view name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  };
  for (const auto& info : kArchs) add(info.name);
  for (const auto& info : kArchs) {
    add(info.uname_machine);
    add(info.debian_arch);
  }
  add(kX86_64Hyphen);
  return out;
}

Arch host_arch() {
#if defined(__aarch64__)
  return Arch::kArm64;
#else
  return Arch::kX86_64;
#endif
}

}  // namespace foliolab
