#include "results/store.h"

#include <fmt/format.h>

#include <algorithm>

#include "results/record_codec.h"
#include "util/fs.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

Result<ResultStore> ResultStore::create(const fs::path& results_root,
                                        const std::string& experiment) {
  std::error_code ec;
  fs::path dir = results_root / experiment / utc_stamp();
  for (int i = 1; fs::exists(dir, ec); ++i) {
    dir = results_root / experiment / fmt::format("{}-{}", utc_stamp(), i);
  }
  fs::create_directories(dir / "runs", ec);
  if (ec) return make_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  return ResultStore(dir);
}

Result<ResultStore> ResultStore::open(const fs::path& session_dir) {
  std::error_code ec;
  if (!fs::is_directory(session_dir / "runs", ec)) {
    return make_error(
        fmt::format("{} is not a foliolab results session (no runs/)", session_dir.string()));
  }
  return ResultStore(fs::weakly_canonical(session_dir, ec));
}

std::optional<fs::path> ResultStore::latest(const fs::path& results_root,
                                            const std::string& experiment,
                                            const std::function<bool(const fs::path&)>& accept) {
  const fs::path base = results_root / experiment;
  std::error_code ec;
  std::vector<fs::path> sessions;
  for (const auto& e : fs::directory_iterator(base, ec)) {
    if (fs::is_directory(e.path() / "runs", ec) && (!accept || accept(e.path()))) {
      sessions.push_back(e.path());
    }
  }
  if (sessions.empty()) return std::nullopt;
  return *std::max_element(sessions.begin(), sessions.end());
}

fs::path ResultStore::run_dir(const std::string& run_id) const { return dir_ / "runs" / run_id; }

bool ResultStore::has_record(const std::string& run_id) const { return load_record(run_id).ok(); }

Result<RunRecord> ResultStore::load_record(const std::string& run_id) const {
  const fs::path file = run_dir(run_id) / "run.json";
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  return parse_record(*text, file.string());
}

Result<void> ResultStore::save_record(const RunRecord& record) const {
  return write_file_atomic(run_dir(record.id.run_id) / "run.json",
                           encode_record(record).dump(2) + "\n");
}

Result<void> ResultStore::save_text(const std::string& name, const std::string& text) const {
  return write_file_atomic(dir_ / name, text);
}

Result<void> ResultStore::save_plan(const StoredPlan& plan) const {
  json runs = json::array();
  for (const RunIdentity& id : plan.runs) runs.push_back(encode_identity(id));
  json j = {{"schema", kPlanSchema},
            {"experiment", plan.experiment},
            {"plan_hash", plan.hash},
            {"plan_runs", plan.plan_runs}};
  if (plan.shard) j["shard"] = plan.shard->text();
  if (!plan.merged_from.empty()) {
    json sources = json::array();
    for (const MergedSource& m : plan.merged_from) {
      sources.push_back(
          {{"session", m.session}, {"shard", m.shard}, {"hosts", m.hosts}, {"runs", m.runs}});
    }
    j["merged_from"] = std::move(sources);
  }
  j["runs"] = std::move(runs);
  return save_text("plan.json", j.dump(2) + "\n");
}

Result<StoredPlan> ResultStore::load_plan() const {
  const fs::path file = dir_ / "plan.json";
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  const json j = json::parse(*text, nullptr, false);
  // Schema 1 (no version) was a bare array of identities.
  const json* runs = j.is_array() ? &j : nullptr;
  if (j.is_object() && j.contains("runs") && j["runs"].is_array()) runs = &j["runs"];
  if (!runs) return make_error(fmt::format("{}: not a foliolab plan", file.string()));
  StoredPlan plan;
  std::vector<std::string> ids;
  for (const json& r : *runs) {
    auto id = decode_identity(r, file.string());
    if (!id.ok()) return id.error();
    ids.push_back(id->run_id);
    plan.runs.push_back(std::move(*id));
  }
  try {
    if (j.is_object() && j.value("schema", 0) >= 3) {
      plan.experiment = j.at("experiment").get<std::string>();
      plan.hash = j.at("plan_hash").get<std::string>();
      plan.plan_runs = j.at("plan_runs").get<int>();
      if (j.contains("shard")) {
        auto shard = parse_shard(j["shard"].get<std::string>());
        if (!shard.ok())
          return make_error(fmt::format("{}: {}", file.string(), shard.error().message));
        plan.shard = *shard;
      }
      for (const json& m : j.value("merged_from", json::array())) {
        plan.merged_from.push_back(
            {m.at("session").get<std::string>(), m.at("shard").get<std::string>(),
             m.at("hosts").get<std::vector<std::string>>(), m.at("runs").get<int>()});
      }
      return plan;
    }
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: damaged plan: {}", file.string(), e.what()));
  }
  plan.experiment =
      plan.runs.empty() ? dir_.parent_path().filename().string() : plan.runs.front().experiment;
  plan.hash = plan_hash(ids);
  plan.plan_runs = static_cast<int>(ids.size());
  return plan;
}

std::vector<std::string> ResultStore::planned_archs() const {
  std::vector<std::string> archs;
  auto plan = load_plan();
  if (!plan.ok()) return archs;
  for (const RunIdentity& run : plan->runs) {
    if (std::find(archs.begin(), archs.end(), run.arch) == archs.end()) archs.push_back(run.arch);
  }
  return archs;
}

Result<std::vector<RunRecord>> ResultStore::load_all() const {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_ / "runs", ec)) {
    if (fs::exists(e.path() / "run.json", ec)) ids.push_back(e.path().filename().string());
  }
  if (ec)
    return make_error(fmt::format("cannot list {}: {}", (dir_ / "runs").string(), ec.message()));
  std::sort(ids.begin(), ids.end());
  std::vector<RunRecord> out;
  for (const auto& id : ids) {
    auto r = load_record(id);
    if (!r.ok()) return r.error();
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace foliolab
