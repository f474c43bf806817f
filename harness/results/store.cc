#include "results/store.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

Result<ResultStore> ResultStore::create(const fs::path& results_root, const std::string& experiment) {
  fs::path dir = results_root / experiment / utc_stamp();
  for (int i = 1; fs::exists(dir); ++i) dir = results_root / experiment / fmt::format("{}-{}", utc_stamp(), i);
  std::error_code ec;
  fs::create_directories(dir / "runs", ec);
  if (ec) return make_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  return ResultStore(dir);
}

Result<ResultStore> ResultStore::open(const fs::path& session_dir) {
  if (!fs::is_directory(session_dir / "runs")) {
    return make_error(fmt::format("{} is not a foliolab results directory (no runs/)", session_dir.string()));
  }
  return ResultStore(session_dir);
}

std::optional<fs::path> ResultStore::latest(const fs::path& results_root, const std::string& experiment) {
  const fs::path base = results_root / experiment;
  if (!fs::is_directory(base)) return std::nullopt;
  std::vector<fs::path> sessions;
  for (const auto& e : fs::directory_iterator(base)) {
    if (fs::is_directory(e.path() / "runs")) sessions.push_back(e.path());
  }
  if (sessions.empty()) return std::nullopt;
  return *std::max_element(sessions.begin(), sessions.end());
}

fs::path ResultStore::run_dir(const std::string& run_id) const { return dir_ / "runs" / run_id; }

bool ResultStore::has_record(const std::string& run_id) const { return load_record(run_id).ok(); }

Result<json> ResultStore::load_record(const std::string& run_id) const {
  const fs::path file = run_dir(run_id) / "run.json";
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) return make_error(file.string() + ": not valid JSON");
  if (j.value("schema", 0) != kRunRecordSchema) {
    return make_error(fmt::format("{}: schema {} (this foliolab reads {})", file.string(), j.value("schema", 0),
                                  kRunRecordSchema));
  }
  return j;
}

Status ResultStore::save_record(const std::string& run_id, const json& record) const {
  json r = record;
  r["schema"] = kRunRecordSchema;
  return write_file_atomic(run_dir(run_id) / "run.json", r.dump(2) + "\n");
}

Status ResultStore::save_text(const std::string& name, const std::string& text) const {
  return write_file_atomic(dir_ / name, text);
}

Result<std::vector<json>> ResultStore::load_all() const {
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(dir_ / "runs")) {
    if (fs::exists(e.path() / "run.json")) ids.push_back(e.path().filename().string());
  }
  std::sort(ids.begin(), ids.end());
  std::vector<json> out;
  for (const auto& id : ids) {
    auto r = load_record(id);
    if (!r.ok()) return r.error();
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace foliolab
