// Results on disk: results/<experiment>/<timestamp>/ with experiment.yaml (a copy), plan.json,
// and runs/<run id>/{run.json, console.log, records.bin, qemu.log, initrd.cpio}. run.json is
// written atomically once a run has ended, so an interrupted session leaves either a complete
// record or none; `--resume` skips runs that have one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace foliolab {

inline constexpr int kRunRecordSchema = 1;

class ResultStore {
 public:
  // Opens (creating) a session directory.
  static Result<ResultStore> create(const std::filesystem::path& results_root, const std::string& experiment);
  static Result<ResultStore> open(const std::filesystem::path& session_dir);
  // Newest session directory of an experiment, if any.
  static std::optional<std::filesystem::path> latest(const std::filesystem::path& results_root,
                                                     const std::string& experiment);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path run_dir(const std::string& run_id) const;
  bool has_record(const std::string& run_id) const;
  Result<nlohmann::json> load_record(const std::string& run_id) const;
  Status save_record(const std::string& run_id, const nlohmann::json& record) const;
  Status save_text(const std::string& name, const std::string& text) const;
  // Every stored run record (schema-checked), in run-id order.
  Result<std::vector<nlohmann::json>> load_all() const;

 private:
  explicit ResultStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

}  // namespace foliolab
