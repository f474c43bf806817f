#include "runner/session.h"

#include <fmt/format.h>

#include <utility>

#include "model/matrix.h"
#include "runner/record_builder.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

StoredPlan stored_plan(const Experiment& exp, const std::vector<Run>& runs,
                       const std::optional<PlanShard>& shard) {
  StoredPlan plan{.experiment = exp.name,
                  .hash = shard ? shard->plan_hash : plan_hash(runs),
                  .plan_runs = shard ? shard->plan_runs : static_cast<int>(runs.size()),
                  .shard = shard ? std::optional(shard->shard) : std::nullopt};
  for (const auto& r : runs) plan.runs.push_back(record_identity(exp, r));
  return plan;
}

// Whether a session that ran `old` may go on with `plan`: the same shard (or none) of the same
// plan.
bool continues(const StoredPlan& old, const StoredPlan& plan) {
  return old.shard == plan.shard && (!plan.shard || old.hash == plan.hash);
}

std::string plan_text(const StoredPlan& p) {
  return fmt::format("{} of plan {}", p.shard ? "shard " + p.shard->text() : "the whole", p.hash);
}

// The newest session of the experiment that `plan` continues.
std::optional<fs::path> latest_session(const Experiment& exp, const StoredPlan& plan,
                                       const SessionOptions& opt) {
  return ResultStore::latest(opt.results_root, exp.name, [&](const fs::path& dir) {
    auto s = ResultStore::open(dir);
    if (!s.ok()) return false;
    auto old = s->load_plan();
    return old.ok() && continues(*old, plan);
  });
}

Result<ResultStore> open_store(const Experiment& exp, const StoredPlan& plan,
                               const SessionOptions& opt, RunStatus& status) {
  std::optional<fs::path> resume = opt.resume_dir;
  if (!resume && opt.resume_latest) resume = latest_session(exp, plan, opt);
  if (!resume) return ResultStore::create(opt.results_root, exp.name);
  auto store = ResultStore::open(*resume);
  if (!store.ok()) return store.error();
  if (auto old = store->load_plan(); old.ok() && !continues(*old, plan)) {
    return make_error(fmt::format("cannot resume {}: it ran {}, this is {}", store->dir().string(),
                                  plan_text(*old), plan_text(plan)));
  }
  status.note(fmt::format("resuming {}", store->dir().string()));
  return store;
}

}  // namespace

Session::Session(ResultStore store, const SessionOptions& options, RunStatus& status, int total)
    : store_(std::move(store)),
      retry_failed_(options.retry_failed),
      index_(options.index),
      status_(&status),
      host_(host_provenance()),
      summary_{.dir = store_.dir(), .total = total} {}

Result<Session> Session::open(const Experiment& exp, const std::vector<Run>& runs,
                              const SessionOptions& options, RunStatus& status) {
  const StoredPlan plan = stored_plan(exp, runs, options.shard);
  auto store = open_store(exp, plan, options, status);
  if (!store.ok()) return store.error();
  // The experiment as last run against this session (a resume may have edited it); each run
  // record carries its own full identity, so nothing is lost by replacing it.
  if (auto yaml = read_file(exp.file); yaml.ok()) {
    FL_TRY(store->save_text("experiment.yaml", *yaml));
  }
  FL_TRY(store->save_plan(plan));
  return Session(std::move(*store), options, status, static_cast<int>(runs.size()));
}

std::optional<bool> Session::kept(const Run& run) const {
  auto old = store_.load_record(run.id);
  if (!old.ok()) return std::nullopt;
  if (retry_failed_ && !old->ok()) return std::nullopt;
  return old->ok();
}

void Session::count_kept(bool ok) {
  ++summary_.skipped;
  (ok ? summary_.ok : summary_.failed)++;
}

Result<void> Session::save(const RunRecord& record) const {
  FL_TRY(store_.save_record(record));
  if (index_) {
    if (auto st = index_->add_run(store_.dir(), record); !st.ok()) {
      status_->note(
          fmt::format("warning: index not updated ({}); `foliolab index rebuild` "
                      "recreates it",
                      st.error().message));
    }
  }
  return {};
}

void Session::tally(const RunRecord& r) {
  if (r.ok()) {
    ++summary_.ok;
    status_->run_finished(
        r.id.run_id, true,
        fmt::format("ok ({:.1f}s, {})", r.provenance.boot_seconds, r.provenance.accel));
  } else {
    ++summary_.failed;
    status_->run_finished(r.id.run_id, false, fmt::format("{}: {}", r.status, r.reason));
  }
}

}  // namespace foliolab
