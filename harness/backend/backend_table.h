// The backends `machine.backend:` and `run --backend` can name, and what each needs. The planner
// reads the needs (the host backend builds no kernel and writes no initrd; it never runs beside
// another run); the CLI makes the backend through the entry's factory.
//
// It also makes the backend a session runs on (make_backend): the entry's, or a pool of libvirt
// hosts (`run --hosts`); and before any backend runs, it restores what an interrupted run left
// (recover_interrupted_runs).
//
// Adding a backend is one entry in backend_table() (backend_table.cc) plus its class: name,
// doc, needs, transport and a factory taking BackendContext. A backend option from the command
// line (e.g. libvirt's --connect URI) goes into BackendContext.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "backend/host_pool.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

// How the agent's record stream reaches the host.
enum class ResultTransport {
  kVirtioSerialFile,  // a virtio-serial port the emulator writes into a host file
  kInheritedFd,       // a host file the agent inherits as a descriptor (FOLIOLAB_RESULTS_FD)
  kLibvirtChannel,  // a virtio-serial channel: a host file for a local URI, a libvirt stream for a
                    // remote one
  kTcpWithNonce,    // a TCP connection from a lab machine that greets with the run's nonce
};
std::string_view transport_name(ResultTransport t);

struct BackendContext {
  ProcessRunner& runner;
  std::filesystem::path cache;  // foliolab's cache root (accel verdicts; <cache>/host state)
  std::string connect;  // a hypervisor URI for backends that take one (--connect; "": default)
  const PoolHost* host = nullptr;  // a pool's host (its URI is `connect`; a lab machine's keys)
};

struct BackendEntry {
  std::string_view name;
  std::string_view doc;
  BackendNeeds needs;
  ResultTransport transport;
  std::function<Result<std::unique_ptr<Backend>>(const BackendContext&)>
      factory;  // e.g. cannot connect
};

const std::vector<BackendEntry>& backend_table();
const BackendEntry* find_backend(std::string_view name);
std::vector<std::string> backend_names();

// machine.backend names a backend of the table; a located error with "did you mean" otherwise.
Result<void> validate_backend(const Experiment& exp);

// The host backend's state directory (restore journal and lock) under a cache root.
std::filesystem::path host_state_dir(const std::filesystem::path& cache);

// The backend a session asked for: machine.backend (or --backend), machine.connect (or
// --connect), and `hosts`, a pool (--hosts) in place of one connection: libvirt hosts, or lab
// machines for kexec.
struct BackendChoice {
  std::string name;
  std::string connect;
  std::vector<PoolHost> hosts;
};

struct MadeBackend {
  const BackendEntry* entry = nullptr;  // the chosen entry (libvirt or kexec for a pool)
  std::unique_ptr<Backend> backend;
  PoolBackend* pool = nullptr;  // `backend` when it is a pool of hosts
};

// Makes the chosen backend through its entry's factory or, with hosts, a pool of backends of
// the entry, one per host: a host that cannot be reached is left out with a line in `warnings`.
// kexec is always a pool (machine.connect is a pool of one): one run at a time per machine.
Result<MadeBackend> make_backend(const BackendChoice& choice, ProcessRunner& runner,
                                 const std::filesystem::path& cache,
                                 std::vector<std::string>& warnings);

// Before any backend runs: a host run SIGKILLed before restoring the host's knobs left a journal
// in <cache>/host, which this restores. Says what it did, or "" when there was nothing to do.
Result<std::string> recover_interrupted_runs(const std::filesystem::path& cache);

}  // namespace foliolab
