// A results session: the directory one plan's runs are stored in. Open it afresh or resume one
// (--resume-dir, or --resume: the newest session of the same shard and plan); it keeps the
// experiment as last run and the plan, takes one record per finished run (indexing it too), and
// tallies the runs for the closing summary.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "model/shard.h"
#include "results/index.h"
#include "results/run_record.h"
#include "results/store.h"
#include "runner/status.h"
#include "util/result.h"

namespace foliolab {

struct SessionSummary {
  std::filesystem::path dir;
  int total = 0, ok = 0, failed = 0, skipped = 0;
};

// The runs of a session are one shard of a bigger plan (`run --shard K/N`): the session records
// it, and a resume continues only a session of the same shard and plan.
struct PlanShard {
  Shard shard;
  std::string plan_hash;
  int plan_runs = 0;
};

struct SessionOptions {
  std::filesystem::path results_root;
  std::optional<std::filesystem::path> resume_dir;  // continue this session
  bool resume_latest = false;                       // continue the newest session
  bool retry_failed = false;                        // with resume: rerun runs that failed
  ResultIndex* index = nullptr;                     // also index each run here, if given
  std::optional<PlanShard> shard;
};

class Session {
 public:
  // The session for `runs`, resumed or new, with the experiment and the plan saved in it.
  static Result<Session> open(const Experiment& exp, const std::vector<Run>& runs,
                              const SessionOptions& options, RunStatus& status);

  const ResultStore& store() const { return store_; }
  const std::filesystem::path& dir() const { return store_.dir(); }
  const HostInfo& host() const { return host_; }  // recorded in every run
  const SessionSummary& summary() const { return summary_; }

  // A run finished in an earlier session is kept (a failed one too, unless --retry-failed):
  // whether it was ok; nullopt when it is to run.
  std::optional<bool> kept(const Run& run) const;
  void count_kept(bool ok);
  // Stores a run's record; the run file is the source of truth, so a failure to index it is
  // reported as a warning, not returned.
  Result<void> save(const RunRecord& record) const;
  // Counts a finished run and tells the status how it ended.
  void tally(const RunRecord& record);

 private:
  Session(ResultStore store, const SessionOptions& options, RunStatus& status, int total);
  ResultStore store_;
  bool retry_failed_ = false;
  ResultIndex* index_ = nullptr;
  RunStatus* status_ = nullptr;
  HostInfo host_;
  SessionSummary summary_;
};

}  // namespace foliolab
