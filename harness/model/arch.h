// Per-arch facts in one table (tuxrun style): behaviour stays in code, facts stay here.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace foliolab {

enum class Arch { kX86_64, kArm64 };

// A page size other than the base one, chosen per kernel by a config fragment or option.
struct PageSizeChoice {
  int kb;
  std::string_view fragment;  // kernel-config/<fragment>.config
  std::string_view option;    // or this option =y in the kernel's `options`
};

struct ArchInfo {
  Arch arch;
  std::string_view name;          // as written in experiments: "x86_64", "arm64"
  std::string_view kernel_arch;   // ARCH= for kbuild
  std::string_view cross_prefix;  // CROSS_COMPILE= ("" for native)
  std::string_view kernel_cc;     // the C compiler kbuild is given (CC=)
  std::string_view image_target;  // make target of the compressed boot image
  std::string_view image_path;    // relative to the O= dir
  // An image the kernel can boot from directly when its .config has `direct_boot_option`
  // (x86_64: vmlinux by its PVH entry point, no decompressor or real-mode setup); "" for none.
  std::string_view direct_boot_image;
  std::string_view direct_boot_option;
  std::string_view config_fragment;  // kernel-config/<name>.config, always applied
  // Applied after guest-full when the kernel is the full guest kernel ("" = none).
  std::string_view full_config_fragment;
  std::string_view qemu_binary;
  std::string_view qemu_machine;
  std::string_view qemu_cpu;
  std::string_view console;        // kernel console= device
  std::string_view guest_cc;       // C compiler for static guest binaries
  std::string_view uname_machine;  // what the guest's uname -m says
  // Debian root filesystems (image/rootfs_builder.h): Debian's name for the arch, and how a
  // host of another arch runs its programs: qemu-user-static's binary and the binfmt_misc
  // magic and mask of its ELF executables (as QEMU's scripts/qemu-binfmt-conf.sh has them,
  // in binfmt_misc's \x escapes).
  std::string_view debian_arch;
  std::string_view qemu_user;
  std::string_view binfmt_magic;
  std::string_view binfmt_mask;
  unsigned elf_machine;  // e_machine of its ELF executables (EM_X86_64, EM_AARCH64)
  // The machine has ACPI (libvirt's <features><acpi/><apic/>): the full guest kernel powers off
  // through it; the small x86_64 one has no ACPI and its agent ends the guest by a reset
  // (-no-reboot, <on_reboot>destroy). Else PSCI, from the device tree the guest boots with.
  bool acpi;
  // Virtio devices sit on the board's MMIO transports, not PCI (arm64 virt: its guest kernels
  // have no PCI); x86_64 q35 uses virtio-pci (microvm: MMIO too).
  bool virtio_mmio;
  // The KVM smoke test (backend/kvm_smoke.h: x86 code) runs before the probe boot.
  bool kvm_smoke;
  int base_page_kb;                            // the page size without a choice
  std::span<const PageSizeChoice> page_sizes;  // the others, the first selected wins
};

std::span<const ArchInfo> all_archs();
const ArchInfo& arch_info(Arch arch);
std::optional<Arch> parse_arch(std::string_view name);
// Every spelling parse_arch accepts, names first (the schema's enum of archs).
std::vector<std::string> arch_spellings();
// Architecture of the machine foliolab runs on (decides whether KVM can apply).
Arch host_arch();

}  // namespace foliolab
