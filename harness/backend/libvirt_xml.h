// libvirt domain XML built by a pure function of the machine spec and the boot (golden-file
// tested per arch), the libvirt counterpart of qemu_args.h. The domain mirrors the QEMU
// backend's command line: same machine and CPU model, the same NUMA cells, distances and
// preallocated RAM, direct kernel boot, the serial console and the result stream on a
// virtio-serial port named kResultsPortName, and no reboot (a panic ends the domain).
#pragma once

#include <filesystem>
#include <string>

#include "backend/qemu_args.h"
#include "model/arch.h"
#include "model/experiment.h"

namespace foliolab {

struct DomainSpec {
  std::string name;  // unique among the host's running domains
  Arch arch = Arch::kX86_64;
  Accel accel = Accel::kTcg;  // kvm: domain type kvm with the host CPU; tcg: type qemu, CPU max
  MachineSpec machine;
  std::filesystem::path kernel;  // paths on the libvirt host
  std::filesystem::path initrd;
  std::string cmdline;  // complete kernel command line
  // Files on the libvirt host, for local URIs. Empty: a pty (console) or a unix socket QEMU
  // listens on (records), read back by the caller through virDomainOpenConsole /
  // virDomainOpenChannel (the way to get them from a remote host).
  std::filesystem::path console_log;
  std::filesystem::path records_file;
  bool prealloc = true;  // back guest RAM up front, as the QEMU backend does
};

std::string domain_xml(const DomainSpec& spec);

// A domain name from a run id: libvirt names allow more, but these survive any tool.
std::string domain_name(const std::string& run_id, const std::string& unique);

}  // namespace foliolab
