#include "cli/merge_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>

#include "analysis/session_report.h"
#include "cli/cli_util.h"
#include "model/loader.h"
#include "report/render.h"
#include "results/index.h"
#include "results/merge.h"
#include "results/store.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

// Indexes the merged session and stores its report.txt; problems here are warnings.
void index_and_report(const fs::path& root, const fs::path& session) {
  auto store = ResultStore::open(session);
  if (!store.ok()) {
    fmt::print(stderr, "warning: {}\n", store.error().message);
    return;
  }
  auto records = store->load_all();
  if (!records.ok()) {
    fmt::print(stderr, "warning: {}\n", records.error().message);
    return;
  }
  if (auto index = ResultIndex::open(root); index.ok()) {
    for (const RunRecord& r : *records) {
      if (auto st = index->add_run(store->dir(), r); !st.ok()) {
        fmt::print(stderr,
                   "warning: index not updated ({}); `foliolab index rebuild` recreates it\n",
                   st.error().message);
        break;
      }
    }
  } else {
    fmt::print(stderr, "warning: runs not indexed: {}\n", index.error().message);
  }
  if (auto exp = load_experiment((store->dir() / "experiment.yaml").string()); exp.ok()) {
    (void)store->save_text("report.txt", session_text(build_session_report(*exp, *records)));
  }
}

}  // namespace

std::function<int()> setup_merge(CLI::App& app) {
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto into = std::make_shared<std::string>();
  app.add_option("inputs", *inputs, "results roots or session directories to merge (only read)")
      ->required();
  app.add_option("--into", *into, "results root that receives the merged session")->required();
  return [=] {
    std::vector<fs::path> paths(inputs->begin(), inputs->end());
    auto sessions = find_sessions(paths);
    if (!sessions.ok()) return fail(sessions.error());
    auto merged = merge_sessions(*sessions, *into);
    if (!merged.ok()) return fail(merged.error());
    index_and_report(*into, merged->session);
    for (const std::string& n : merged->notes) fmt::print(stderr, "note: {}\n", n);
    for (const std::string& c : merged->conflicts) fmt::print(stderr, "warning: conflict: {}\n", c);
    for (const std::string& m : merged->missing) fmt::print(stderr, "warning: missing run {}\n", m);
    std::string hosts;
    for (const auto& [host, n] : merged->runs_per_host)
      hosts += fmt::format("{}{} {}", hosts.empty() ? "" : ", ", host, n);
    fmt::print("merged {} session(s) of '{}' (plan {}) into {}\n", sessions->size(),
               merged->experiment, merged->plan_hash, merged->session.string());
    fmt::print("runs: {} of {} planned ({} identical duplicate(s), {} conflict(s)); per host: {}\n",
               merged->runs, merged->plan_runs, merged->identical_duplicates,
               merged->conflicts.size(), hosts.empty() ? "-" : hosts);
    return merged->runs == merged->plan_runs ? kExitOk : kExitFailed;
  };
}

}  // namespace foliolab::cli
