// The results index: <results root>/index.sqlite, a query layer over the run files (which stay
// the source of truth; `rebuild` recreates it from them). It holds sessions, runs with their
// identity, status and provenance, samples (metric × repetition), counter deltas and knob
// state, so that a question across sessions is a query, not a directory walk.
//
// Concurrency: WAL mode, a busy timeout, and one BEGIN IMMEDIATE transaction per run, so any
// number of foliolab processes may write one root at once.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/index_schema.h"
#include "results/run_query.h"
#include "results/run_record.h"
#include "results/sql.h"
#include "util/result.h"

namespace foliolab {

struct IndexedRun {
  std::filesystem::path session_dir;  // absolute
  std::string session;                // relative to the root: <experiment>/<stamp>
  std::string stamp, experiment, run_id, kernel, arch, knob_set, workload, status, accel;
  bool timings_emulated = false;
  std::string timing = "wall";  // provenance.timing: wall or icount
};

struct IndexedSample {
  IndexedRun run;
  int rep = 0;
  double value = 0;
};

class ResultIndex {
 public:
  // Opens <root>/index.sqlite, creating it or migrating it from an older schema.
  static Result<ResultIndex> open(const std::filesystem::path& results_root);
  // Opens a lab server's index (results/index_schema.h open_index_url): a PostgreSQL URL or a
  // SQLite file, with no results tree beside it (session_dir is then the relative key).
  static Result<ResultIndex> open_url(const std::string& target);
  // results/index_rebuild.h: refills the index's tables, its own and those of bisect_index.h
  // and finding_index.h, from the files under the root.
  friend Result<int> rebuild_index(const std::filesystem::path& results_root,
                                   const std::function<void(const std::string&)>& warn);

  // Replaces the run's entry (same session, same run id) in one transaction.
  Result<void> add_run(const std::filesystem::path& session_dir, const RunRecord& record);
  // Runs matching the query, oldest session first, then run id.
  Result<std::vector<IndexedRun>> find_runs(const RunQuery& query);
  // Every sample of a workload metric or counter delta for the matching runs, in find_runs
  // order then rep.
  Result<std::vector<IndexedSample>> samples(const std::string& metric, const RunQuery& query);
  // Sessions (relative paths) of an experiment, oldest first.
  Result<std::vector<std::string>> sessions(const std::string& experiment);

  // How long the newest ok run with this run id took (finished - started), if there is one.
  Result<std::optional<double>> last_run_seconds(const std::string& run_id);
  // How many measured reps (warm-up ones are not indexed) that run had, if there is one.
  Result<std::optional<int>> last_run_reps(const std::string& run_id);
  // For sessions that live in the index alone (a lab server's pushes), in the caller's
  // transaction: the sessions row of <experiment>/<stamp>, inserted when new (*inserted says
  // so), and a session's runs (replacing rows of the same run id).
  Result<int64_t> session_row(const std::string& key, bool* inserted);
  Result<void> insert_runs(int64_t session, const std::vector<RunRecord>& records);
  SqlDb& db() { return db_; }
  const std::filesystem::path& root() const { return root_; }

 private:
  ResultIndex(SqlDb db, std::filesystem::path root) : db_(std::move(db)), root_(std::move(root)) {}
  Result<int64_t> session_id(const std::filesystem::path& session_dir);
  // Every <root>/<experiment>/<stamp>/runs/*/run.json, in the caller's transaction.
  Result<int> index_run_files(const std::function<void(const std::string&)>& warn);
  Result<std::optional<double>> newest_ok_run(std::string_view expr, const std::string& run_id);
  SqlDb db_;
  std::filesystem::path root_;
};

}  // namespace foliolab
