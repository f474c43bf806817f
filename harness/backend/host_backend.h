// The host backend (`backend: host`): the same agent and workloads, with the same job, run on
// this machine instead of in a guest, for bare-metal numbers. The run's root is the base image
// plus the job unpacked into a private directory; the agent runs there as PID 1 of its own PID
// and mount namespace (chrooted, as root) with its record stream going to the run's records.bin
// through an inherited descriptor, so the records have the QEMU backend's contents. Every THP
// knob and sysctl the job writes is journaled to disk first and restored afterwards
// (knob_journal.h): on success, on failure, on SIGINT/SIGTERM (cancellation), and after a SIGKILL
// at the next start.
#pragma once

#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/knob_journal.h"

namespace foliolab {

struct HostBackendOptions {
  std::filesystem::path state_dir;       // restore journal and lock (<cache>/host)
  std::filesystem::path sys_root = "/";  // prefix of /sys and /proc/sys (tests: a fake tree)
  std::function<bool()> is_root;         // default: euid 0
};

// Knob and sysctl paths a job writes, as on the host ("/sys/kernel/mm/transparent_hugepage/
// enabled", "/proc/sys/vm/overcommit_memory"), in job order.
std::vector<std::string> job_knob_paths(const std::string& job_text);

class HostBackend : public Backend {
 public:
  explicit HostBackend(HostBackendOptions options);
  std::string name() const override { return "host"; }
  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override;
  // Root, the host's arch only, one kernel (the host's), no kernel command line, and every
  // knob and sysctl the experiment sets present on this kernel. Takes the host lock.
  Result<void> preflight(const Experiment& exp, const std::vector<Run>& runs) override;
  Result<BootOutcome> boot(const BootRequest& req) override;

 private:
  Result<void> take_lock();
  HostBackendOptions opt_;
  std::mutex mu_;  // one host run at a time, whatever the scheduler does
  std::optional<HostLock> lock_;
};

}  // namespace foliolab
