// Results on disk: <root>/<experiment>/<stamp>/ with experiment.yaml (a copy), plan.json,
// report.txt and runs/<run id>/{run.json, console.log, records.bin, qemu.log, job.txt}.
// run.json (results/record_codec.h) is written atomically once a run has ended, so an
// interrupted session leaves either a complete record or none; `--resume` skips runs that have
// one. The run files are the source of truth; <root>/index.sqlite (results/index.h) is rebuilt
// from them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

inline constexpr int kPlanSchema = 2;  // plan.json: {"schema", "runs": [identity, ...]}

class ResultStore {
 public:
  // Opens (creating) a session directory.
  static Result<ResultStore> create(const std::filesystem::path& results_root,
                                    const std::string& experiment);
  static Result<ResultStore> open(const std::filesystem::path& session_dir);
  // Newest session directory of an experiment, if any.
  static std::optional<std::filesystem::path> latest(const std::filesystem::path& results_root,
                                                     const std::string& experiment);

  const std::filesystem::path& dir() const { return dir_; }
  // The results root this session lives in (<root>/<experiment>/<stamp>).
  std::filesystem::path root() const { return dir_.parent_path().parent_path(); }
  std::filesystem::path run_dir(const std::string& run_id) const;
  bool has_record(const std::string& run_id) const;
  Result<RunRecord> load_record(const std::string& run_id) const;
  Status save_record(const RunRecord& record) const;
  Status save_text(const std::string& name, const std::string& text) const;
  Status save_plan(const std::vector<RunIdentity>& plan) const;
  // The archs plan.json names, in first-seen order (empty when there is no plan).
  std::vector<std::string> planned_archs() const;
  // Every stored run record, in run-id order. A damaged record is an error naming its file.
  Result<std::vector<RunRecord>> load_all() const;

 private:
  explicit ResultStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

}  // namespace foliolab
