// What `run` sets up before its first run, shared with `bisect` (whose steps are sessions too):
// the flags that choose a backend and how runs go, the experiment as loaded and checked, and a
// RunContext holding the backend, the results index, the status and the artifact builders.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "backend/backend_table.h"
#include "cli/cli_util.h"
#include "cli/progress.h"
#include "model/experiment.h"
#include "results/index.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "util/cache_root.h"
#include "util/process.h"

namespace foliolab::cli {

struct Common {
  std::string root = data_dir().string();  // --root, FOLIOLAB_ROOT or the source tree
  std::string cache = cache_root().string();
  void add(CLI::App& app) {
    app.add_option(
        "--root", root,
        "foliolab data folder (kernel-config/, patches/, images/, workloads/), after a project's");
    app.add_option("--cache", cache, "cache for sources, kernels and images (FOLIOLAB_CACHE)");
  }
};

// Loads, validates and optionally filters an experiment; prints errors.
std::optional<Experiment> load(const std::string& file, const Common& c,
                               const std::vector<std::string>& archs);

// `foliolab run`'s flags.
struct RunFlags {
  std::string file;
  Common common;
  std::vector<std::string> archs;
  std::string results = default_results_root().string();
  std::string resume;
  bool resume_latest = false;
  bool retry = false;
  int make_jobs = 0;
  int guests = 0;
  std::string accel;
  std::string timing;
  std::string shard;
  std::string connect;
  std::string backend;
  std::string hosts;
  std::string repeat_ci;         // --repeat-until-ci
  std::string foreign = "auto";  // --foreign: how another arch's Debian image is made
  // run --server: the lab server that gets the session when it ends and shares kernels by
  // build id (fetched before building, pushed once built); --token-file as `push`.
  std::string server, token_file;
  bool quiet = false;
  bool verbose = false;
  Verbosity verbosity() const {
    return quiet ? Verbosity::kQuiet : verbose ? Verbosity::kVerbose : Verbosity::kNormal;
  }
};

void add_run_flags(CLI::App& app, RunFlags& f);
// Applies --accel, --timing, --backend, --connect, --hosts to exp.machine; the chosen backend.
Result<BackendChoice> choose_backend(const RunFlags& f, Experiment& exp);
// plan and build-kernel: what choose_backend does to the kernels for `hosts` (--hosts) or
// machine.backend kexec (the kexec fragment and the lab machines', the refusals); else nothing.
Result<void> settle_pool_kernels(const Common& c, const std::string& hosts, Experiment& exp);

// The backend made, the index opened, the status shown: what every session of a command uses.
class RunContext {
 public:
  // Restores what an interrupted host run left, makes the backend (its warnings printed), opens
  // the index (a warning when it cannot be), starts the status.
  static Result<std::unique_ptr<RunContext>> open(const RunFlags& f, const BackendChoice& choice,
                                                  const Experiment& exp);
  // One results session of `runs`; `opt` gives what differs per session (resume, shard), the
  // context fills in the rest.
  Result<SessionSummary> run(const Experiment& exp, const std::vector<Run>& runs,
                             RunnerOptions opt);
  // Ends the status block (before a report is printed) and says how a pool's hosts were used.
  void finish();
  // The results index, when it could be opened.
  ResultIndex* index() { return index_ ? &*index_ : nullptr; }

 private:
  explicit RunContext(const RunFlags& f) : flags_(f) {}
  const RunFlags& flags_;
  RealProcessRunner proc_;
  std::unique_ptr<RunStatus> status_;
  MadeBackend made_;
  std::optional<ResultIndex> index_;
  int jobs_ = 1;
};

}  // namespace foliolab::cli
