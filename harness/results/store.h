// Results on disk: <root>/<experiment>/<stamp>/ with experiment.yaml (a copy), plan.json,
// report.txt and runs/<run id>/{run.json, console.log, records.bin, qemu.log, job.txt}.
// run.json (results/record_codec.h) is written atomically once a run has ended, so an
// interrupted session leaves either a complete record or none; `--resume` skips runs that have
// one. The run files are the source of truth; <root>/index.sqlite (results/index.h) is rebuilt
// from them.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/shard.h"
#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

// plan.json: {"schema", "experiment", "plan_hash", "plan_runs", "shard"?, "merged_from"?,
// "runs": [identity, ...]}. Schema 3 added all but "runs"; schema 2 had only "runs", schema 1
// was a bare array of identities.
inline constexpr int kPlanSchema = 3;

// A session that `foliolab merge` made: one entry per input session.
struct MergedSource {
  std::string session;             // the input session directory, as given
  std::string shard;               // its "K/N", or "" for a whole plan
  std::vector<std::string> hosts;  // hostnames of the runs taken from it, sorted
  int runs = 0;                    // runs taken from it
};

// What a session's plan.json says: the runs this session was to do (`runs`) and the plan they
// belong to. For a whole-plan session the two are the same; a shard's `runs` are its slice.
struct StoredPlan {
  std::string experiment;
  std::string hash;   // model/shard.h plan_hash of the whole plan
  int plan_runs = 0;  // runs in the whole plan
  std::optional<Shard> shard;
  std::vector<MergedSource> merged_from;
  std::vector<RunIdentity> runs;
};

class ResultStore {
 public:
  // Opens (creating) a session directory.
  static Result<ResultStore> create(const std::filesystem::path& results_root,
                                    const std::string& experiment);
  static Result<ResultStore> open(const std::filesystem::path& session_dir);
  // Newest session directory of an experiment, if any (of those `accept` takes, when given).
  static std::optional<std::filesystem::path> latest(
      const std::filesystem::path& results_root, const std::string& experiment,
      const std::function<bool(const std::filesystem::path&)>& accept = {});

  const std::filesystem::path& dir() const { return dir_; }
  // The results root this session lives in (<root>/<experiment>/<stamp>).
  std::filesystem::path root() const { return dir_.parent_path().parent_path(); }
  std::filesystem::path run_dir(const std::string& run_id) const;
  bool has_record(const std::string& run_id) const;
  Result<RunRecord> load_record(const std::string& run_id) const;
  Result<void> save_record(const RunRecord& record) const;
  Result<void> save_text(const std::string& name, const std::string& text) const;
  // Writes plan.json; `plan.runs` are the identities this session is to run.
  Result<void> save_plan(const StoredPlan& plan) const;
  // plan.json read back. Older schemas get the hash and count of their runs (a whole plan).
  Result<StoredPlan> load_plan() const;
  // The archs plan.json names, in first-seen order (empty when there is no plan).
  std::vector<std::string> planned_archs() const;
  // Every stored run record, in run-id order. A damaged record is an error naming its file.
  Result<std::vector<RunRecord>> load_all() const;

 private:
  explicit ResultStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

}  // namespace foliolab
