#include "backend/libvirt_xml.h"

#include <fmt/format.h>

#include "util/xml.h"

namespace foliolab {

namespace {

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

// <cpu>: TCG gets QEMU's `max` model (mode maximum), KVM the host CPU, as in qemu_argv. The
// NUMA cells live inside it.
std::string cpu_xml(const DomainSpec& s) {
  const std::string mode = s.accel == Accel::kKvm ? "host-passthrough" : "maximum";
  if (s.machine.numa.empty()) return fmt::format("  <cpu mode='{}' check='none'/>\n", mode);
  std::string x = fmt::format("  <cpu mode='{}' check='none'>\n    <numa>\n", mode);
  const auto& dist = s.machine.numa_distance;
  for (size_t i = 0; i < s.machine.numa.size(); ++i) {
    const NumaNode& n = s.machine.numa[i];
    x += fmt::format("      <cell id='{}' cpus='{}' memory='{}' unit='MiB'", i, cpu_list(n.cpus),
                     n.memory_mb);
    if (i >= dist.size()) {
      x += "/>\n";
      continue;
    }
    x += ">\n        <distances>\n";
    for (size_t j = 0; j < dist[i].size(); ++j) {
      x += fmt::format("          <sibling id='{}' value='{}'/>\n", j, dist[i][j]);
    }
    x += "        </distances>\n      </cell>\n";
  }
  return x + "    </numa>\n  </cpu>\n";
}

// A character device: to `file`, or (no file) of `stream_type` with `stream_source`, read back
// through the stream API.
std::string chardev_xml(const std::string& element, const std::filesystem::path& file,
                        const std::string& target, const std::string& stream_type,
                        const std::string& stream_source) {
  const std::string source =
      file.empty() ? stream_source : fmt::format("<source path='{}'/>", xml_escape(file.string()));
  std::string x = fmt::format("    <{} type='{}'>\n", element, file.empty() ? stream_type : "file");
  if (!source.empty()) x += "      " + source + "\n";
  return x + fmt::format("      {}\n    </{}>\n", target, element);
}

}  // namespace

std::string domain_name(const std::string& run_id, const std::string& unique) {
  std::string out = "foliolab-";
  for (char c : run_id + "-" + unique) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out;
}

std::string domain_xml(const DomainSpec& s) {
  const ArchInfo& ai = arch_info(s.arch);
  std::string x = fmt::format("<domain type='{}'>\n", s.accel == Accel::kKvm ? "kvm" : "qemu");
  x += fmt::format("  <name>{}</name>\n", xml_escape(s.name));
  x += fmt::format("  <memory unit='MiB'>{}</memory>\n", s.machine.memory_mb);
  // Immediate allocation is QEMU's prealloc: TCG timings are stable only with RAM backed up front.
  if (s.prealloc)
    x += "  <memoryBacking>\n    <allocation mode='immediate'/>\n  </memoryBacking>\n";
  x += fmt::format("  <vcpu placement='static'>{}</vcpu>\n", s.machine.cpus);
  x += "  <os>\n";
  x += fmt::format("    <type arch='{}' machine='{}'>hvm</type>\n", ai.uname_machine,
                   ai.qemu_machine);
  x += fmt::format("    <kernel>{}</kernel>\n", xml_escape(s.kernel.string()));
  x += fmt::format("    <initrd>{}</initrd>\n", xml_escape(s.initrd.string()));
  x += fmt::format("    <cmdline>{}</cmdline>\n", xml_escape(s.cmdline));
  x += "  </os>\n";
  // x86 guests power off through ACPI: without it the agent's poweroff would leave the domain
  // running until the deadline. arm64 boots from a device tree and powers off through PSCI.
  if (ai.acpi) x += "  <features>\n    <acpi/>\n    <apic/>\n  </features>\n";
  x += cpu_xml(s);
  // -no-reboot: a panic (panic=-1 reboots) or a poweroff ends the domain.
  x += "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n  "
       "<on_crash>destroy</on_crash>\n";
  x += "  <devices>\n";
  // Streams: the console can only be a pty (virDomainOpenConsole); the records go through a
  // unix socket QEMU listens on, which keeps what the guest wrote last when QEMU exits (a pty's
  // hangup would flush it).
  x += chardev_xml("serial", s.console_log, "<target port='0'/>", "pty", "");
  // arm64: the virtio-serial controller on the board's virtio-mmio transports (its guest
  // kernels have no PCI), as the QEMU backend's virtio-serial-device.
  if (ai.virtio_mmio) {
    x += "    <controller type='virtio-serial' index='0'>\n      <address type='virtio-mmio'/>\n"
         "    </controller>\n";
  }
  x += chardev_xml("channel", s.records_file,
                   fmt::format("<target type='virtio' name='{}'/>", kResultsPortName), "unix",
                   "<source mode='bind'/>");
  // What -nodefaults leaves out of the QEMU backend's guest.
  x += "    <controller type='usb' model='none'/>\n    <memballoon model='none'/>\n";
  x += "  </devices>\n</domain>\n";
  return x;
}

}  // namespace foliolab
