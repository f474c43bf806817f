#include "results/merge.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "results/record_codec.h"
#include "results/store.h"
#include "util/fs.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

struct Input {
  ResultStore store;
  StoredPlan plan;
  std::vector<RunRecord> records;
};

// Candidates for one run id, best first (the order merge_sessions documents).
struct Candidate {
  const Input* input;
  const RunRecord* record;
};
bool better(const Candidate& a, const Candidate& b) {
  if (a.record->ok() != b.record->ok()) return a.record->ok();
  if (a.record->finished != b.record->finished) return a.record->finished > b.record->finished;
  return a.input->store.dir() < b.input->store.dir();
}

std::string describe(const Candidate& c) {
  return fmt::format("{} ({}, host {}, finished {})", c.input->store.dir().string(),
                     c.record->status, c.record->provenance.host.hostname, c.record->finished);
}

Result<std::vector<Input>> load_inputs(const std::vector<fs::path>& sessions) {
  std::vector<Input> inputs;
  for (const fs::path& dir : sessions) {
    auto store = ResultStore::open(dir);
    if (!store.ok()) return store.error();
    auto plan = store->load_plan();
    if (!plan.ok())
      return make_error(fmt::format("cannot merge {}: {}", dir.string(), plan.error().message));
    auto records = store->load_all();
    if (!records.ok()) return records.error();
    inputs.push_back({std::move(*store), std::move(*plan), std::move(*records)});
  }
  // One experiment, one plan.
  for (const Input& in : inputs) {
    const Input& first = inputs.front();
    if (in.plan.experiment != first.plan.experiment) {
      return make_error(fmt::format("cannot merge different experiments: {} is '{}', {} is '{}'",
                                    first.store.dir().string(), first.plan.experiment,
                                    in.store.dir().string(), in.plan.experiment));
    }
    if (in.plan.hash != first.plan.hash) {
      return make_error(fmt::format(
          "cannot merge different plans of '{}': {} ran plan {} ({} runs), {} ran plan {} ({} "
          "runs)",
          first.plan.experiment, first.store.dir().string(), first.plan.hash, first.plan.plan_runs,
          in.store.dir().string(), in.plan.hash, in.plan.plan_runs));
    }
  }
  return inputs;
}

// Copies a run directory (run.json and the files beside it).
Result<void> copy_run(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (!ec) fs::copy(from, to, fs::copy_options::recursive, ec);
  if (ec)
    return make_env_error(
        fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message()));
  return {};
}

// A fresh <root>/<experiment>/<stamp> path that does not exist yet.
fs::path new_session_path(const fs::path& root, const std::string& experiment) {
  std::error_code ec;
  fs::path dir = root / experiment / utc_stamp();
  for (int i = 1; fs::exists(dir, ec); ++i)
    dir = root / experiment / fmt::format("{}-{}", utc_stamp(), i);
  return dir;
}

}  // namespace

Result<std::vector<fs::path>> find_sessions(const std::vector<fs::path>& inputs) {
  std::set<fs::path> out;
  std::error_code ec;
  for (const fs::path& in : inputs) {
    if (fs::is_directory(in / "runs", ec)) {
      out.insert(fs::weakly_canonical(in, ec));
      continue;
    }
    if (!fs::is_directory(in, ec))
      return make_error(fmt::format("{}: no such directory", in.string()));
    size_t found = 0;
    for (const auto& exp : fs::directory_iterator(in, ec)) {
      if (!exp.is_directory(ec) || exp.path().filename().string().starts_with(".")) continue;
      for (const auto& session : fs::directory_iterator(exp.path(), ec)) {
        if (fs::is_directory(session.path() / "runs", ec) &&
            !session.path().filename().string().starts_with(".")) {
          out.insert(fs::weakly_canonical(session.path(), ec));
          ++found;
        }
      }
    }
    if (found == 0)
      return make_error(fmt::format("{}: no foliolab results session in it", in.string()));
  }
  return std::vector<fs::path>(out.begin(), out.end());
}

namespace {

// The plan as the inputs know it, and every run's candidates.
struct Gathered {
  std::map<std::string, RunIdentity> planned;
  std::map<std::string, std::vector<Candidate>> candidates;
};

Gathered gather(const std::vector<Input>& inputs, MergeReport* report) {
  Gathered g;
  for (const Input& in : inputs) {
    std::set<std::string> own;
    for (const RunIdentity& id : in.plan.runs) {
      own.insert(id.run_id);
      g.planned.emplace(id.run_id, id);
    }
    for (const RunRecord& r : in.records) {
      if (!own.count(r.id.run_id)) {
        report->notes.push_back(fmt::format("left out {}/runs/{}: not in that session's plan",
                                            in.store.dir().string(), r.id.run_id));
        continue;
      }
      g.candidates[r.id.run_id].push_back({&in, &r});
    }
  }
  return g;
}

// The best candidate of every run; duplicates counted, conflicts and missing runs noted.
std::vector<Candidate> choose(Gathered* g, MergeReport* report) {
  std::vector<Candidate> chosen;
  for (auto& [run_id, cs] : g->candidates) {
    std::stable_sort(cs.begin(), cs.end(), better);
    chosen.push_back(cs.front());
    const std::string kept = encode_record(*cs.front().record).dump();
    for (size_t i = 1; i < cs.size(); ++i) {
      if (encode_record(*cs[i].record).dump() == kept) {
        ++report->identical_duplicates;
      } else {
        report->conflicts.push_back(fmt::format("{}: records differ; kept {}, dropped {}", run_id,
                                                describe(cs.front()), describe(cs[i])));
      }
    }
  }
  for (const auto& [run_id, id] : g->planned) {
    if (!g->candidates.count(run_id)) report->missing.push_back(run_id);
  }
  const int known_missing = static_cast<int>(report->missing.size());
  if (static_cast<int>(chosen.size()) + known_missing < report->plan_runs) {
    report->notes.push_back(
        fmt::format("{} more planned run(s) belong to shards not among the inputs",
                    report->plan_runs - static_cast<int>(chosen.size()) - known_missing));
  }
  return chosen;
}

// Texts of the experiment file: the first input's, noting when others differ.
std::optional<std::string> experiment_yaml(const std::vector<Input>& inputs, MergeReport* report) {
  std::optional<std::string> yaml;
  for (const Input& in : inputs) {
    auto text = read_file(in.store.dir() / "experiment.yaml");
    if (!text.ok()) continue;
    if (!yaml) {
      yaml = *text;
    } else if (*yaml != *text) {
      report->notes.push_back(
          fmt::format("{}/experiment.yaml differs from {}'s (same plan); kept the latter",
                      in.store.dir().string(), inputs.front().store.dir().string()));
    }
  }
  return yaml;
}

// The merged plan: every planned run, and per input how many runs it gave on which hosts.
StoredPlan merged_plan(const MergeReport& report, const Gathered& g,
                       const std::vector<Input>& inputs, const std::vector<Candidate>& chosen) {
  StoredPlan plan{
      .experiment = report.experiment, .hash = report.plan_hash, .plan_runs = report.plan_runs};
  for (const auto& [run_id, id] : g.planned) plan.runs.push_back(id);
  for (const Input& in : inputs) {
    MergedSource src{in.store.dir().string(), in.plan.shard ? in.plan.shard->text() : "", {}, 0};
    std::set<std::string> hosts;
    for (const Candidate& c : chosen) {
      if (c.input != &in) continue;
      ++src.runs;
      hosts.insert(c.record->provenance.host.hostname);
    }
    src.hosts.assign(hosts.begin(), hosts.end());
    plan.merged_from.push_back(std::move(src));
  }
  return plan;
}

// Writes the chosen runs, the plan and the experiment file into the session directory `dir`.
Result<void> write_session(const fs::path& dir, const std::vector<Candidate>& chosen,
                           const StoredPlan& plan, const std::optional<std::string>& yaml,
                           MergeReport* report) {
  auto out = ResultStore::open(dir);
  if (!out.ok()) return out.error();
  for (const Candidate& c : chosen) {
    if (auto st = copy_run(c.input->store.run_dir(c.record->id.run_id),
                           out->run_dir(c.record->id.run_id));
        !st.ok()) {
      return st.error();
    }
    ++report->runs_per_host[c.record->provenance.host.hostname];
  }
  report->runs = static_cast<int>(chosen.size());
  if (auto st = out->save_plan(plan); !st.ok()) return st.error();
  if (yaml) {
    if (auto st = out->save_text("experiment.yaml", *yaml); !st.ok()) return st.error();
  }
  return {};
}

}  // namespace

Result<MergeReport> merge_sessions(const std::vector<fs::path>& sessions,
                                   const fs::path& into_root) {
  if (sessions.empty()) return make_error("nothing to merge");
  auto loaded = load_inputs(sessions);
  if (!loaded.ok()) return loaded.error();
  const std::vector<Input>& inputs = *loaded;
  MergeReport report;
  report.experiment = inputs.front().plan.experiment;
  report.plan_hash = inputs.front().plan.hash;
  report.plan_runs = inputs.front().plan.plan_runs;
  Gathered gathered = gather(inputs, &report);
  const std::vector<Candidate> chosen = choose(&gathered, &report);
  const std::optional<std::string> yaml = experiment_yaml(inputs, &report);

  // Assemble in a hidden directory, then rename it into place.
  const fs::path final_dir = new_session_path(into_root, report.experiment);
  const fs::path tmp = final_dir.parent_path() /
                       fmt::format(".merging-{}-{}", final_dir.filename().string(), ::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp / "runs", ec);
  if (ec) return make_env_error(fmt::format("cannot create {}: {}", tmp.string(), ec.message()));
  auto fail = [&](const Error& e) -> Result<MergeReport> {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return e;
  };
  const StoredPlan plan = merged_plan(report, gathered, inputs, chosen);
  if (auto st = write_session(tmp, chosen, plan, yaml, &report); !st.ok()) return fail(st.error());
  fs::rename(tmp, final_dir, ec);
  if (ec)
    return fail(make_env_error(
        fmt::format("cannot move {} to {}: {}", tmp.string(), final_dir.string(), ec.message())));
  report.session = final_dir;
  return report;
}

}  // namespace foliolab
