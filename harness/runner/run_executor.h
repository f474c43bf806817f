// Turns one planned run into one RunRecord through a backend: the per-run initrd (base image plus
// the job), the kernel command line, the boot, and the decision of how the run ended (the agent's
// records, the build-id and release checks, panic detection, QEMU's own words). Safe to call from
// several threads at once: it keeps no state between runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/accel_probe.h"
#include "backend/backend.h"
#include "image/cpio.h"
#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
#include "protocol/run_report.h"
#include "results/run_record.h"
#include "results/store.h"
#include "runner/status.h"

namespace foliolab {

// A run with everything it needs decided beforehand by the planner.
struct PreparedRun {
  const Run* run = nullptr;
  const KernelArtifact* kernel = nullptr;
  const ImageArtifact* image = nullptr;
  const RootfsArtifact* rootfs = nullptr;  // machine.image runs only
  std::vector<CpioEntry> job_files;
  AccelVerdict accel;
};

// How one run ended. A host failure (the results disk full, the emulator missing) is not the
// run's fault: the run gets no record, so --resume reruns it, and the matrix stops.
struct RunOutcome {
  enum class End { kRecorded, kCancelled, kHostFailure };
  End end = End::kRecorded;
  RunRecord record;        // kRecorded
  std::string host_error;  // kHostFailure
};

struct ExecutorOptions {
  // Below this much free space on the results filesystem a run is not started: QEMU writing the
  // record stream into a full disk looks like a torn guest record otherwise.
  uint64_t min_free_bytes = 64ull << 20;
  std::function<uint64_t(const std::filesystem::path&)> free_bytes;  // default: statvfs
  BackendNeeds needs;  // from the backend table: whether to write a per-run initrd
  // A churn step's scratch disk (image/scratch_disk.h); default: mkfs.ext4 through a real runner.
  std::function<Result<void>(const std::filesystem::path&, uint64_t)> make_scratch_disk;
};

// Why the guest is not running `kernel` (build id not in uname -v, or uname -r not starting with
// the tree's version), or "".
std::string wrong_kernel(const RunReport& report, const KernelArtifact& kernel);

// "Kernel panic - not syncing: ..." from a console log, or "".
std::string find_panic(const std::string& console);

// Free bytes for an unprivileged writer on the filesystem holding `path` (UINT64_MAX if unknown).
uint64_t filesystem_free_bytes(const std::filesystem::path& path);

// "results disk full: …" when `error` came from a full disk, else "cannot write results: …".
std::string results_write_failure(const std::string& error, const std::filesystem::path& dir);

class RunExecutor {
 public:
  RunExecutor(const Experiment& exp, Backend& backend, const ResultStore& store, HostInfo host,
              ExecutorOptions options, RunStatus& status);
  RunOutcome execute(const PreparedRun& p) const;

 private:
  // The run directory with the job (and the per-run initrd), and the boot request for it; an
  // error is a host failure's message.
  Result<BootRequest> stage(const PreparedRun& p, const std::filesystem::path& dir) const;
  // The guest's report as the harness reads it, and who failed if it is not ok.
  std::pair<RunReport, FailureClass> read_report(const PreparedRun& p,
                                                 const BootOutcome& boot) const;
  // How the booted run ended, from its report.
  RunOutcome conclude(RunOutcome out, const BootOutcome& boot, const RunReport& report,
                      FailureClass who) const;
  RunOutcome host_failure(std::string why) const;
  const Experiment& exp_;
  Backend& backend_;
  const ResultStore& store_;
  HostInfo host_;
  ExecutorOptions opt_;
  RunStatus& status_;
};

}  // namespace foliolab
