// LibvirtBackend: boots each run as a transient libvirt domain (virDomainCreateXML) through the
// libvirt C API, on whatever host the connection URI names. The domain XML is domain_xml() of
// the run's machine spec. The domain starts paused; foliolab opens the result channel (a unix
// socket on the libvirt host) through the stream API (virDomainOpenChannel), resumes the guest
// and copies the stream into records.bin here, for every URI: a file chardev would be written by
// virtlogd under Debian's default stdio_handler and rolled over at 2 MiB. The console: for a
// local URI (qemu:///system) a file in the run directory; for a URI that names a host
// (qemu+tcp://host/system, qemu+ssh://...) a pty read through virDomainOpenConsole into the same
// file here, and the kernel and initrd go up as storage volumes. At the deadline the domain is
// destroyed (virDomainDestroy); it is also started with AUTODESTROY, so a foliolab that dies leaves
// no guest behind.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backend/accel_probe.h"
#include "backend/backend.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

inline constexpr const char* kDefaultLibvirtUri = "qemu:///system";

struct LibvirtOptions {
  std::string uri = kDefaultLibvirtUri;
  AccelProbeOptions probe;  // the QEMU probe boot that proves KVM on this machine (and its cache)
};

// True when the URI names a host ("qemu+tcp://127.0.0.1/system", "qemu+ssh://root@lab/system"):
// its files are not ours, so console and records come back through libvirt streams.
bool libvirt_uri_names_host(const std::string& uri);

// What a libvirt host says about KVM for one guest arch, and where it is.
struct LibvirtKvmOffer {
  bool offered = false;       // virConnectGetDomainCapabilities accepts virttype kvm for the arch
  std::string why_not;        // libvirt's words when not offered
  bool same_machine = false;  // the libvirt host is the machine foliolab runs on
};

// The accelerator for a libvirt run: kvm only when the host offers a kvm domain for the arch
// and, on this machine, the real probe boot (`local_probe`, the QEMU backend's cached probe)
// reached the guest agent; an advertised KVM proves nothing under broken nested
// virtualization. A remote host's KVM cannot be probed from here: `auto` stays on TCG there,
// `kvm` trusts the host. Pure apart from `local_probe`.
Result<AccelVerdict> libvirt_accel(
    const AccelRequest& req, const std::string& uri, const LibvirtKvmOffer& offer,
    const std::function<Result<AccelVerdict>(const AccelRequest&)>& local_probe);

// Opens the connection (the error names the URI and libvirt's reason). The one place the CLI
// and a backend table construct this backend.
Result<std::unique_ptr<Backend>> make_libvirt_backend(ProcessRunner& runner,
                                                      LibvirtOptions options);

}  // namespace foliolab
