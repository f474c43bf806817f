#include "backend/backend_table.h"

#include <fmt/format.h>

#include "backend/host_backend.h"
#include "backend/kexec_backend.h"
#include "backend/knob_journal.h"
#include "backend/libvirt_backend.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;

std::string_view transport_name(ResultTransport t) {
  switch (t) {
    case ResultTransport::kVirtioSerialFile:
      return "virtio-serial port to a host file";
    case ResultTransport::kInheritedFd:
      return "inherited descriptor to a host file";
    case ResultTransport::kLibvirtChannel:
      return "virtio-serial channel (a file locally, a libvirt stream remotely)";
    case ResultTransport::kTcpWithNonce:
      return "TCP connection from the lab machine, greeting with the run's nonce";
  }
  return "?";
}

fs::path host_state_dir(const fs::path& cache) { return cache / "host"; }

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> kTable = {
      {"qemu",
       "a QEMU guest per run: the built kernel, the base image plus the run's job as initrd",
       {.kernel = true, .initrd = true, .parallel = true},
       ResultTransport::kVirtioSerialFile,
       [](const BackendContext& c) -> Result<std::unique_ptr<Backend>> {
         return std::unique_ptr<Backend>(
             std::make_unique<QemuBackend>(c.runner, AccelProbeOptions{.cache_dir = c.cache}));
       }},
      {"host",
       "the agent and workloads on this machine (root; its own kernel and THP knobs, restored "
       "afterwards)",
       {.kernel = false, .initrd = false, .parallel = false, .icount = false},
       ResultTransport::kInheritedFd,
       [](const BackendContext& c) -> Result<std::unique_ptr<Backend>> {
         return std::unique_ptr<Backend>(std::make_unique<HostBackend>(
             HostBackendOptions{.state_dir = host_state_dir(c.cache)}));
       }},
      {"libvirt",
       "a transient libvirt domain per run at machine.connect / --connect (default qemu:///system)",
       // No <qemu:commandline> in its domain XML: no -icount (plan refuses machine.timing: icount).
       {.kernel = true, .initrd = true, .parallel = true, .icount = false},
       ResultTransport::kLibvirtChannel,
       [](const BackendContext& c) -> Result<std::unique_ptr<Backend>> {
         return make_libvirt_backend(
             c.runner, {.uri = c.connect.empty() ? std::string(kDefaultLibvirtUri) : c.connect,
                        .probe = AccelProbeOptions{.cache_dir = c.cache}});
       }},
      {"kexec",
       "the run's kernel on a lab machine at machine.connect / --hosts (ssh://root@lab1): copied "
       "over ssh, kexec'ed, its records back over TCP, the machine back on its own kernel",
       // Bare metal: no emulator (no -icount); one run at a time per machine (a pool of slot-1
       // hosts, so several machines run beside each other).
       {.kernel = true, .initrd = true, .parallel = true, .icount = false},
       ResultTransport::kTcpWithNonce,
       [](const BackendContext& c) -> Result<std::unique_ptr<Backend>> {
         auto spec = kexec_host_spec(c.host ? *c.host : PoolHost{.uri = c.connect});
         if (!spec.ok()) return spec.error();
         return KexecBackend::open(c.runner, std::move(*spec));
       }},
  };
  return kTable;
}

const BackendEntry* find_backend(std::string_view name) {
  for (const auto& e : backend_table()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& e : backend_table()) names.emplace_back(e.name);
  return names;
}

Result<void> validate_backend(const Experiment& exp) {
  const std::string& name = exp.machine.backend;
  if (find_backend(name)) return {};
  const auto valid = backend_names();
  std::string message =
      fmt::format("{}: machine.backend: unknown backend '{}'", exp.machine.backend_loc.str(), name);
  return make_error(
      fmt::format("{}{} (valid: {})", message, did_you_mean(name, valid), join(valid, ", ")));
}

Result<MadeBackend> make_backend(const BackendChoice& choice, ProcessRunner& runner,
                                 const fs::path& cache, std::vector<std::string>& warnings) {
  std::vector<PoolHost> hosts = choice.hosts;
  std::string name = choice.name;
  if (!hosts.empty()) {
    auto kind = pool_backend_name(hosts);
    if (!kind.ok()) return kind.error();
    name = *kind;
  } else if (name == "kexec") {
    if (choice.connect.empty()) {
      return make_error(
          "backend kexec needs a lab machine: machine.connect ssh://root@HOST, or --hosts FILE");
    }
    hosts.push_back({.uri = choice.connect});  // a pool of one: one run at a time
  }
  MadeBackend made{.entry = find_backend(name)};
  if (!made.entry) {
    return make_internal_error("make_backend: no backend '" + name + "' in the table");
  }
  if (hosts.empty()) {
    auto backend =
        made.entry->factory({.runner = runner, .cache = cache, .connect = choice.connect});
    if (!backend.ok()) return backend.error();
    made.backend = std::move(*backend);
    return made;
  }
  const BackendEntry& entry = *made.entry;
  auto pool = PoolBackend::open(
      hosts,
      [&](const PoolHost& h) {
        return entry.factory({.runner = runner, .cache = cache, .connect = h.uri, .host = &h});
      },
      warnings);
  if (!pool.ok()) return pool.error();
  made.pool = pool->get();
  made.backend = std::move(*pool);
  return made;
}

Result<std::string> recover_interrupted_runs(const fs::path& cache) {
  return recover_host_journal(host_state_dir(cache));
}

}  // namespace foliolab
