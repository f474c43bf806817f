// Runs an expanded experiment: builds each (kernel, arch) once, builds the arch's base image
// once, boots one guest per run, and stores one record per run. A kernel that fails to build,
// a guest that panics or hangs, fails only its own runs: the matrix goes on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "protocol/run_report.h"
#include "image/image_builder.h"
#include "image/kselftest_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
#include "model/shard.h"
#include "results/index.h"
#include "results/store.h"
#include "runner/status.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct RunnerOptions {
  std::filesystem::path project_root;
  std::filesystem::path results_root;
  std::optional<std::filesystem::path> resume_dir;  // continue this session
  bool resume_latest = false;                        // continue the newest session
  bool retry_failed = false;                         // with resume: rerun runs that failed
  ResultIndex* index = nullptr;                      // also index each run here, if given
  // Set when the runs given to run() are one shard of a bigger plan (`run --shard K/N`): the
  // session records it, and --resume continues only a session of the same shard and plan.
  struct ShardOf {
    Shard shard;
    std::string plan_hash;
    int plan_runs = 0;
  };
  std::optional<ShardOf> shard;
  BackendNeeds needs;  // what the backend needs (guest/backend_table.h); default: QEMU's
  int jobs = 1;  // guests at once (`run -j`); run ids, records and report order do not depend on it
  uint64_t min_free_bytes = 64ull << 20;  // a run needs this much free space on the results disk
  std::function<uint64_t(const std::filesystem::path&)> free_bytes;  // default: statvfs (tests: a fake)
  // Progress goes to `status` when given; otherwise plain lines go to `log` (called from several
  // threads when jobs > 1; the runner serializes the calls).
  RunStatus* status = nullptr;
  std::function<void(const std::string&)> log;
};

// Where kernels and base images come from (real: KernelBuilder/ImageBuilder; tests: fakes).
class ArtifactProvider {
 public:
  virtual ~ArtifactProvider() = default;
  virtual Result<KernelArtifact> kernel(const KernelSpec& spec, Arch arch) = 0;
  virtual Result<ImageArtifact> image(Arch arch) = 0;
  // Files a workload needs in the run's job archive (a custom program, the mm selftests built
  // from `kernel`'s tree); usually none.
  virtual Result<std::vector<CpioEntry>> workload_files(const WorkloadSpec& w, const KernelSpec& kernel,
                                                        Arch arch) = 0;
};

class BuildingArtifactProvider : public ArtifactProvider {
 public:
  BuildingArtifactProvider(ProcessRunner& runner, KernelBuildOptions kernel_options);
  Result<KernelArtifact> kernel(const KernelSpec& spec, Arch arch) override;
  Result<ImageArtifact> image(Arch arch) override;
  Result<std::vector<CpioEntry>> workload_files(const WorkloadSpec& w, const KernelSpec& kernel,
                                                Arch arch) override;

 private:
  ProcessRunner& runner_;
  KernelBuildOptions kopt_;
  KernelBuilder kernels_;
  ImageBuilder images_;
  KselftestBuilder kselftests_;
};

struct SessionSummary {
  std::filesystem::path dir;
  int total = 0, ok = 0, failed = 0, skipped = 0;
};

class ExperimentRunner {
 public:
  ExperimentRunner(ArtifactProvider& artifacts, Backend& backend, RunnerOptions options);
  Result<SessionSummary> run(const Experiment& exp, const std::vector<Run>& runs);

 private:
  ArtifactProvider& artifacts_;
  Backend& backend_;
  RunnerOptions opt_;
  std::unique_ptr<RunStatus> own_status_;  // lines to opt_.log when no status was given
  RunStatus* status_ = nullptr;
};

// The kernel a backend that builds none runs: the host's own (its release as the version, no
// build id and no image).
KernelArtifact host_kernel_artifact(const KernelSpec& spec, Arch arch);

// Guests to run at once by default: the host's cores, bounded by the memory available (from
// /proc/meminfo) over each guest's RAM plus QEMU's own (about 256 MiB). At least 1.
int default_guest_jobs(uint64_t guest_memory_mb);
int guest_jobs_for(unsigned cores, uint64_t available_mb, uint64_t guest_memory_mb);

// Why the guest is not running `kernel` (build id not in uname -v, or uname -r not starting with
// the tree's version), or "".
std::string wrong_kernel(const RunReport& report, const KernelArtifact& kernel);

// "Kernel panic - not syncing: ..." from a console log, or "".
std::string find_panic(const std::string& console);

}  // namespace foliolab
