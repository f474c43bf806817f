#include "runner/experiment_runner.h"

#include <fmt/format.h>

#include <mutex>

#include "catalog/guest_kernel.h"
#include "runner/planner.h"
#include "runner/scheduler.h"
#include "util/process.h"

namespace foliolab {

ExperimentRunner::ExperimentRunner(ArtifactProvider& artifacts, Backend& backend,
                                   RunnerOptions options)
    : artifacts_(artifacts), backend_(backend), opt_(std::move(options)) {
  if (!opt_.log) opt_.log = [](const std::string&) {};
  status_ = opt_.status;
  if (!status_) {
    own_status_ = make_line_status(opt_.log);
    status_ = own_status_.get();
  }
}

SessionOptions ExperimentRunner::session_options() const {
  return {.results_root = opt_.results_root,
          .resume_dir = opt_.resume_dir,
          .resume_latest = opt_.resume_latest,
          .retry_failed = opt_.retry_failed,
          .index = opt_.index,
          .shard = opt_.shard};
}

Result<SessionSummary> ExperimentRunner::run(const Experiment& given,
                                             const std::vector<Run>& runs) {
  // Which guest kernel each kernel is (catalog/guest_kernel.h), settled here as `foliolab run`
  // does, so a caller that loaded the experiment itself (a test, a bench) builds the same ones.
  Experiment exp = given;
  FL_TRY(settle_guest_kernels(exp));
  // A plan the backend cannot run is refused before a session exists.
  FL_TRY(check_timing_mode(exp, runs, opt_.needs));
  FL_TRY(backend_.preflight(exp, runs));
  auto session = Session::open(exp, runs, session_options(), *status_);
  if (!session.ok()) return session.error();
  Planner planner(exp, artifacts_, backend_, opt_.needs, *status_);  // owns what `todo` points to
  auto todo = planner.plan(runs, *session);
  if (!todo.ok()) return todo.error();
  RunExecutor executor(
      exp, backend_, session->store(), session->host(),
      {.min_free_bytes = opt_.min_free_bytes, .free_bytes = opt_.free_bytes, .needs = opt_.needs},
      *status_);
  const std::string host_error = execute(exp, *todo, executor, *session);
  const SessionSummary& summary = session->summary();
  const std::string dir = session->dir().string();
  if (!host_error.empty()) {
    return make_env_error(
        fmt::format("host failure, matrix stopped: {}\n{} run(s) of {} kept in {}; "
                    "fix the host, then continue with --resume-dir {}",
                    host_error, summary.ok + summary.failed, summary.total, dir, dir));
  }
  if (cancel_requested()) {
    return make_error(fmt::format("interrupted; resume with --resume-dir {}", dir));
  }
  return summary;
}

std::string ExperimentRunner::execute(const Experiment& exp, const std::vector<PreparedRun>& todo,
                                      const RunExecutor& executor, Session& session) {
  std::mutex mu;  // the session's tally and its index connection
  std::string host_error;
  auto exclusive = [&](size_t i) {
    return !opt_.needs.parallel || exp.exclusive || exp.workloads[todo[i].run->workload].exclusive;
  };
  auto task = [&](size_t i, const TaskSlot& slot) {
    RunOutcome outcome = executor.execute(todo[i]);
    std::lock_guard<std::mutex> lock(mu);
    if (outcome.end == RunOutcome::End::kCancelled) return false;
    if (outcome.end == RunOutcome::End::kHostFailure) {
      if (host_error.empty()) host_error = outcome.host_error;
      return false;
    }
    outcome.record.provenance.guests_beside = slot.max_beside();
    if (auto st = session.save(outcome.record); !st.ok()) {
      if (host_error.empty()) host_error = results_write_failure(st.error().message, session.dir());
      return false;
    }
    session.tally(outcome.record);
    return true;
  };
  Scheduler(opt_.jobs).run(todo.size(), exclusive, task, cancel_requested);
  return host_error;
}

}  // namespace foliolab
