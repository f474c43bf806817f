// Runs an expanded experiment: opens (or resumes) a results session, plans every run (each
// (kernel, arch) built once, the arch's base image once, the accelerator settled once), then
// boots one guest per run, up to `jobs` at once, and stores one record per run. A kernel that
// fails to build, a guest that panics or hangs, fails only its own runs: the matrix goes on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/experiment.h"
#include "results/index.h"
#include "runner/artifact_provider.h"
#include "runner/run_executor.h"
#include "runner/session.h"
#include "runner/status.h"
#include "util/result.h"

namespace foliolab {

struct RunnerOptions {
  std::filesystem::path data_root;
  std::filesystem::path results_root;
  std::optional<std::filesystem::path> resume_dir;  // continue this session
  bool resume_latest = false;                       // continue the newest session
  bool retry_failed = false;                        // with resume: rerun runs that failed
  ResultIndex* index = nullptr;                     // also index each run here, if given
  // Set when the runs given to run() are one shard of a bigger plan (`run --shard K/N`): the
  // session records it, and --resume continues only a session of the same shard and plan.
  using ShardOf = PlanShard;
  std::optional<ShardOf> shard;
  BackendNeeds needs;  // what the backend needs (backend/backend_table.h); default: QEMU's
  int jobs = 1;  // guests at once (`run -j`); run ids, records and report order do not depend on it
  uint64_t min_free_bytes = 64ull << 20;  // a run needs this much free space on the results disk
  std::function<uint64_t(const std::filesystem::path&)>
      free_bytes;  // default: statvfs (tests: a fake)
  // Progress goes to `status` when given; otherwise plain lines go to `log` (called from several
  // threads when jobs > 1; the runner serializes the calls).
  RunStatus* status = nullptr;
  std::function<void(const std::string&)> log;
};

// Shaped like ninja's Builder: where the plan's artifacts come from, the backend that boots the
// runs and the status that hears of them are handed in; run() plans and executes.
class ExperimentRunner {
 public:
  ExperimentRunner(ArtifactProvider& artifacts, Backend& backend, RunnerOptions options);
  Result<SessionSummary> run(const Experiment& exp, const std::vector<Run>& runs);

 private:
  SessionOptions session_options() const;
  // Boots the prepared runs, up to opt_.jobs at once, saving each record as its run ends. A host
  // failure stops the launch of further runs, keeping every finished one: returns its message
  // ("" when there was none).
  std::string execute(const Experiment& exp, const std::vector<PreparedRun>& todo,
                      const RunExecutor& executor, Session& session);

  ArtifactProvider& artifacts_;
  Backend& backend_;
  RunnerOptions opt_;
  std::unique_ptr<RunStatus> own_status_;  // lines to opt_.log when no status was given
  RunStatus* status_ = nullptr;
};

}  // namespace foliolab
