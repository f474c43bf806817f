#include "backend/qemu_args.h"

#include "protocol/job.h"

#include <fmt/format.h>

namespace foliolab {

namespace {
// QEMU option values separate properties with ',': a literal comma is written twice.
std::string qemu_escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    out += c;
    if (c == ',') out += ',';
  }
  return out;
}

// -mem-prealloc, or a memory backend per NUMA node with the distances between them.
void add_memory(const QemuLaunch& l, std::vector<std::string>& a) {
  if (l.machine.numa.empty()) {
    if (l.prealloc) a.push_back("-mem-prealloc");
    return;
  }
  for (size_t i = 0; i < l.machine.numa.size(); ++i) {
    const NumaNode& n = l.machine.numa[i];
    a.push_back("-object");
    a.push_back(fmt::format("memory-backend-ram,id=m{},size={}M{}", i, n.memory_mb,
                            l.prealloc ? ",prealloc=on" : ""));
    std::string node = fmt::format("node,memdev=m{},nodeid={}", i, i);
    for (int cpu : n.cpus) node += fmt::format(",cpus={}", cpu);
    a.push_back("-numa");
    a.push_back(node);
  }
  for (size_t i = 0; i < l.machine.numa_distance.size(); ++i) {
    for (size_t j = 0; j < l.machine.numa_distance[i].size(); ++j) {
      if (i == j) continue;
      a.push_back("-numa");
      a.push_back(fmt::format("dist,src={},dst={},val={}", i, j, l.machine.numa_distance[i][j]));
    }
  }
}

// The root filesystem's disk (a snapshot unless the image step writes it) and the swap disk,
// on virtio-blk: PCI, or MMIO on a machine without a PCI bus.
void add_disks(const QemuLaunch& l, bool mmio, std::vector<std::string>& a) {
  if (!l.root_disk.empty()) {
    a.insert(a.end(),
             {"-drive",
              "file=" + qemu_escape(l.root_disk.string()) +
                  (l.root_disk_writable ? ",if=none,id=root,format=raw,cache=writeback"
                                        : ",if=none,id=root,format=raw,snapshot=on,cache=unsafe"),
              "-device", mmio ? "virtio-blk-device,drive=root" : "virtio-blk-pci,drive=root"});
  }
  // A run's own disks: writable, cache=unsafe (thrown away after the boot), found by serial.
  const auto own_disk = [&](const std::filesystem::path& file, const char* id, const char* serial) {
    if (file.empty()) return;
    a.insert(a.end(), {"-drive",
                       "file=" + qemu_escape(file.string()) + ",if=none,id=" + id +
                           ",format=raw,cache=unsafe,discard=unmap",
                       "-device",
                       std::string(mmio ? "virtio-blk-device" : "virtio-blk-pci") + ",drive=" + id +
                           ",serial=" + serial});
  };
  own_disk(l.swap_disk, "swap", kSwapDiskSerial);
  own_disk(l.scratch_disk, "scratch", kScratchDiskSerial);
}

}  // namespace

std::string accel_name(Accel a) {
  switch (a) {
    case Accel::kKvm:
      return "kvm";
    case Accel::kTcg:
      return "tcg";
    case Accel::kNone:
      return "none";
  }
  return "tcg";
}

std::string kernel_cmdline(Arch arch, const std::string& extra) {
  std::string c =
      fmt::format("console={} panic=-1 rdinit=/init loglevel=6", arch_info(arch).console);
  if (!extra.empty()) c += " " + extra;
  return c;
}

std::vector<std::string> qemu_argv(const QemuLaunch& l) {
  const ArchInfo& ai = arch_info(l.arch);
  std::vector<std::string> a = {
      std::string(ai.qemu_binary),
      "-M",
      l.machine_override.empty() ? std::string(ai.qemu_machine) : l.machine_override,
      "-accel",
      accel_name(l.accel),
      "-cpu",
      l.accel == Accel::kKvm ? "host" : std::string(ai.qemu_cpu),
      "-smp",
      std::to_string(l.machine.cpus),
      "-m",
      fmt::format("{}M", l.machine.memory_mb)};
  add_memory(l, a);
  // machine.timing: icount (TCG only; plan refuses it elsewhere): the guest clock advances 2^0 ns
  // per instruction executed, and an idle guest's clock jumps to its next timer (sleep=off), so
  // guest time no longer depends on the host's speed or load.
  if (l.accel == Accel::kTcg && l.machine.timing == TimingMode::kIcount) {
    a.insert(a.end(), {"-icount", std::string(kIcountOptions)});
  }
  if (!l.bios.empty()) a.insert(a.end(), {"-bios", l.bios.string()});
  // Virtio over MMIO: arm64 virt's transports (its guest kernels have no PCI), or microvm's.
  const bool mmio = ai.virtio_mmio || l.machine_override.starts_with("microvm");
  a.insert(a.end(), {"-kernel",
                     l.kernel.string(),
                     "-initrd",
                     l.initrd.string(),
                     "-append",
                     l.cmdline,
                     "-display",
                     "none",
                     "-monitor",
                     "none",
                     "-nodefaults",
                     "-no-user-config",
                     "-serial",
                     "file:" + l.console_log.string(),
                     "-no-reboot",
                     "-device",
                     mmio ? "virtio-serial-device" : "virtio-serial-pci",
                     "-chardev",
                     "file,id=results,path=" + qemu_escape(l.results_file.string()),
                     "-device",
                     fmt::format("virtserialport,chardev=results,name={}", kResultsPortName)});
  add_disks(l, mmio, a);
  return a;
}

}  // namespace foliolab
