#include "cli/run_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "analysis/session_report.h"
#include "cli/cli_util.h"
#include "cli/progress.h"
#include "cli/run_setup.h"
#include "kernel/cache_store.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "model/shard.h"
#include "report/render.h"
#include "results/store.h"
#include "runner/experiment_runner.h"
#include "server/lab_client.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

// After a session: keep the cache under the configured max-size, if any.
void collect_after_run(const std::string& cache) {
  auto max = configured_cache_max_size();
  if (!max.ok()) {
    fmt::print(stderr, "warning: no cache collection: {}\n", max.error().message);
    return;
  }
  if (!*max) return;
  GcResult r = collect_garbage(cache, {.max_bytes = **max});
  if (!r.evicted.empty() || !r.note.empty()) {
    fmt::print(stderr, "cache gc (max-size {}): removed {} item(s), {} -> {}\n", human_bytes(**max),
               r.evicted.size(), human_bytes(r.before), human_bytes(r.after));
    if (!r.note.empty()) fmt::print(stderr, "note: {}\n", r.note);
  }
}

// --shard K/N: keeps the slice's runs and says so; nullopt without --shard.
Result<std::optional<RunnerOptions::ShardOf>> select_shard(const std::string& text,
                                                           std::vector<Run>& runs) {
  if (text.empty()) return std::optional<RunnerOptions::ShardOf>();
  auto parsed = parse_shard(text);
  if (!parsed.ok()) return parsed.error();
  RunnerOptions::ShardOf shard{*parsed, plan_hash(runs), static_cast<int>(runs.size())};
  runs = shard_runs(runs, *parsed);
  fmt::print(stderr, "shard {}: {} of the plan's {} runs (plan {})\n", parsed->text(), runs.size(),
             shard.plan_runs, shard.plan_hash);
  return std::optional(shard);
}

// The session's report, where it is and how many runs ended how; the exit status.
int report_session(const Experiment& exp, const Result<SessionSummary>& summary,
                   const std::string& cache) {
  if (!summary.ok()) {
    return fail(summary.error(), kExitFailed);
  }
  auto store = ResultStore::open(summary->dir);
  auto records = store->load_all();
  if (!records.ok()) {
    return fail(records.error(), kExitFailed);
  }
  SessionReport report = build_session_report(exp, *records);
  const std::string text = session_text(report);
  fmt::print("{}", text);
  (void)store->save_text("report.txt", text);
  fmt::print("results: {}\n", summary->dir.string());
  fmt::print("runs: {} ok, {} failed{}\n", summary->ok, summary->failed,
             summary->skipped ? fmt::format(" ({} kept from before)", summary->skipped) : "");
  collect_after_run(cache);
  return (summary->failed == 0 && report.expectations_failed == 0) ? kExitOk : kExitFailed;
}

// The session's directory goes to *session_dir once the session has run.
int run_experiment(const RunFlags& f, fs::path* session_dir) {
  auto exp = load(f.file, f.common, f.archs);
  if (!exp) return kExitBadInput;
  if (auto st = apply_repeat_until_ci(*exp, f.repeat_ci); !st.ok()) return fail(st.error());
  auto choice = choose_backend(f, *exp);
  if (!choice.ok()) return fail(choice.error());
  auto runs = expand(*exp);
  auto shard = select_shard(f.shard, runs);
  if (!shard.ok()) return fail(shard.error());
  if (f.verbosity() != Verbosity::kQuiet) fmt::print(stderr, "{}", format_plan(*exp, runs));
  auto context = RunContext::open(f, *choice, *exp);
  if (!context.ok()) return fail(context.error());
  RunnerOptions opt{.resume_latest = f.resume_latest, .retry_failed = f.retry, .shard = *shard};
  if (!f.resume.empty()) opt.resume_dir = fs::path(f.resume);
  auto summary = (*context)->run(*exp, runs, opt);
  (*context)->finish();  // the status block goes before the report is printed
  if (summary.ok()) *session_dir = summary->dir;
  return report_session(*exp, summary, f.common.cache);
}

}  // namespace

// run --server: the session to the lab server once it has ended (push_session retries a server
// that is restarting). A failed push keeps the local session and says how to push it later.
int push_after_run(int code, const std::string& server, const std::string& token_file,
                   const fs::path& session) {
  auto ref = lab_server_ref(server, token_file);
  if (!ref.ok()) return fail(ref.error());
  if (session.empty()) return code;
  auto out = push_session(*ref, session);
  if (!out.ok()) {
    fmt::print(stderr, "{}\n  later: foliolab push {} --server {}\n", out.error().message,
               session.string(), ref->url);
    return code == kExitOk ? kExitEnvironment : code;
  }
  fmt::print("pushed: {}/sessions/{} ({})\n", ref->url, out->key,
             out->stored ? "stored" : "already there");
  return code;
}

std::function<int()> setup_run(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  add_run_flags(app, *flags);
  app.add_option("--server", flags->server,
                 "a lab server: kernels it has are fetched, kernels built here pushed, the "
                 "session pushed when it ends");
  app.add_option("--token-file", flags->token_file,
                 "a 0600 file with a push token ($FOLIOLAB_TOKEN)");
  return [=] {
    if (!flags->server.empty()) {
      auto ref = lab_server_ref(flags->server, flags->token_file);
      if (!ref.ok()) return fail(ref.error());
    }
    fs::path session;
    const int code = run_experiment(*flags, &session);
    if (flags->server.empty() || code == kExitBadInput) return code;
    return push_after_run(code, flags->server, flags->token_file, session);
  };
}

}  // namespace foliolab::cli
