#include "cli/bisect_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string_view>

#include "analysis/history.h"
#include "analysis/session_report.h"
#include "bisect/bisect_candidates.h"
#include "bisect/bisect_counts.h"
#include "bisect/bisect_driver.h"
#include "bisect/bisect_origin.h"
#include "bisect/bisect_report.h"
#include "bisect/bisect_timings.h"
#include "catalog/metric_catalog.h"
#include "cli/regression_files.h"
#include "cli/run_setup.h"
#include "model/arch.h"
#include "model/project.h"
#include "report/bisect.h"
#include "results/bisect_index.h"
#include "results/index.h"
#include "results/store.h"
#include "server/lab_client.h"
#include "util/fs_ops.h"
#include "util/text.h"
#include "util/time_stamp.h"

namespace foliolab::cli {
namespace fs = std::filesystem;
namespace {

// --where kernel=…,arch=…,workload=… as the run selector of one comparison.
Result<RunSelector> parse_where(const std::string& text) {
  auto q = parse_run_query(text);
  if (!q.ok()) return q.error();
  if (!q->experiment.empty() || !q->session.empty() || !q->since.empty() || !q->until.empty()) {
    return make_error("--where " + text + ": bisect selects by kernel, arch and workload only");
  }
  RunSelector sel;
  sel.kernel = q->kernel;
  sel.knobs = q->knobs;
  sel.workload = q->workload;
  if (!q->arch.empty()) {
    sel.arch = parse_arch(q->arch);
    if (!sel.arch) return make_error("--where arch=" + q->arch + ": unknown (x86_64, arm64)");
  }
  return sel;
}

// The bisection's directory: a new one under the results root, or the one being resumed.
Result<fs::path> bisect_dir(const BisectFlags& f, const Experiment& exp) {
  if (!f.resume.empty()) return fs::path(f.resume);
  fs::path dir = fs::path(f.run.results) / exp.name / ("bisect-" + utc_stamp());
  for (int i = 1; path_exists(dir); ++i) {
    dir = fs::path(f.run.results) / exp.name / fmt::format("bisect-{}-{}", utc_stamp(), i);
  }
  FL_TRY(make_dirs(dir));
  return dir;
}

// `bisect resume DIR`: the flags the bisection started with, from its log.
Result<void> restore_flags(const BisectLog& log, BisectFlags& f) {
  const auto& m = log.meta();
  if (!m.count("experiment") || !m.count("metric")) {
    return make_error(f.resume + "/bisect.json: not a started bisection (no experiment recorded)");
  }
  auto get = [&m](const char* key) { return m.count(key) ? m.at(key) : std::string(); };
  f.run.file = m.at("experiment");
  f.variants.clear();
  const std::string variants = get("variants");  // split_lines views it: it must outlive the loop
  for (std::string_view v : split_lines(variants)) f.variants.emplace_back(v);
  f.series = get("series");
  if (auto k = parse_uint(get("good_patches"))) f.good_patches = *k;
  f.range = get("range");
  f.metric = m.at("metric");
  f.where = get("where");
  // How the steps were timed, unless given again.
  if (f.run.timing.empty()) f.run.timing = get("timing");
  if (auto reps = parse_uint(get("max_reps"))) f.max_reps = *reps;
  if (auto n = parse_uint(get("confirm")); n && !f.confirm_given) f.confirm = static_cast<int>(*n);
  return {};
}

// The record in session `dir` of the run with this identity (a history series').
Result<RunRecord> series_record(const fs::path& dir, const RunQuery& id) {
  auto store = ResultStore::open(dir);
  if (!store.ok()) return store.error();
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  for (RunRecord& r : *records) {
    if (r.id.kernel.name == id.kernel && r.id.arch == id.arch && r.id.knob_set.name == id.knobs &&
        r.id.workload.label == id.workload) {
      return std::move(r);
    }
  }
  return make_error(fmt::format("{}: no run of kernel={},arch={},knobs={},workload={}",
                                dir.string(), id.kernel, id.arch, id.knobs, id.workload));
}

// The samples of --metric for the experiment, narrowed by --where: from the index under
// --results, or from the lab server's with --server.
Result<std::vector<IndexedSample>> history_samples(const BisectFlags& f, const Experiment& exp) {
  auto query = parse_run_query(f.where);
  FL_TRY(query);
  query->experiment = exp.name;
  if (f.run.server.empty()) {
    auto index = ResultIndex::open(f.run.results);
    if (!index.ok()) return index.error();
    return index->samples(f.metric, *query);
  }
  auto server = lab_server_ref(f.run.server, f.run.token_file);
  FL_TRY(server);
  const std::string where =
      f.where.empty() ? "experiment=" + exp.name : f.where + ",experiment=" + exp.name;
  return fetch_samples(*server, f.metric, where);
}

// --server: the change point's two sessions, fetched into <cache>/lab/<server>/.
Result<void> fetch_change_point_sessions(const BisectFlags& f, ChangePointBisect* cp) {
  auto server = lab_server_ref(f.run.server, f.run.token_file);
  FL_TRY(server);
  const fs::path root = lab_session_root(f.run.common.cache, *server);
  auto good = fetch_session(*server, cp->good_session, root);
  FL_TRY(good);
  auto bad = fetch_session(*server, cp->bad_session, root);
  FL_TRY(bad);
  cp->good_session_dir = *good;
  cp->bad_session_dir = *bad;
  return {};
}

// --from-change-point SESSION: the change point of --metric in the experiment's history (the
// index under --results, narrowed by --where) whose first session after it is SESSION; what
// separates its two sessions' kernels becomes --series or --range, its series --where.
Result<void> from_change_point(BisectFlags& f, const Experiment& exp) {
  if (!f.variants.empty() || !f.series.empty() || !f.range.empty() || f.metric.empty()) {
    return make_error(
        "--from-change-point SESSION takes --metric M and none of --variants, --series, --range "
        "(the change point's kernels give them)");
  }
  auto samples = history_samples(f, exp);
  FL_TRY(samples);
  CompareOptions options;
  options.thresholds = exp.thresholds;
  HistoryModel model = build_history(f.metric, *samples, declared_metrics(exp), options);
  find_change_points(model);
  auto cp = find_change_point_bisect(model, f.from_change_point);
  if (!cp.ok()) return in_context("--from-change-point", cp.error());
  if (!f.run.server.empty()) FL_TRY(fetch_change_point_sessions(f, &*cp));
  auto good = series_record(cp->good_session_dir, cp->selector);
  FL_TRY(good);
  auto bad = series_record(cp->bad_session_dir, cp->selector);
  FL_TRY(bad);
  auto origin = bisect_origin(*good, *bad, f.run.common.cache);
  if (!origin.ok()) {
    return in_context(
        fmt::format("--from-change-point: {} → {}", cp->good_session, cp->bad_session),
        origin.error());
  }
  f.series = origin->series;
  f.good_patches = origin->good_patches;
  f.range = origin->range;
  f.where = cp->where;
  fmt::print(stderr, "change point of {}: {} → {}: bisect {} --where {}\n", f.metric,
             cp->good_session, cp->bad_session, origin->flag(), f.where);
  return {};
}

// --series S: its folder, the project's or foliolab's patches/S.
Result<fs::path> series_folder(const BisectFlags& f, const Experiment& exp) {
  const SearchPath names(exp.project, f.run.common.root);
  const fs::path rel = fs::path("patches") / f.series;
  const auto found = names.find(rel);
  if (!found) {
    return make_error("--series " + f.series + ": no patch series (no " + names.searched(rel) +
                      ")");
  }
  return found->path;
}

fs::path mbox_scratch(const BisectFlags& f) {
  return fs::path(f.run.common.cache) / "work" / "bisect-mbox";
}

// The candidates the flags name: exactly one of --variants, --series, --range.
Result<BisectCandidates> candidates(const BisectFlags& f, const Experiment& exp,
                                    const RunSelector& where) {
  const int given = !f.variants.empty() + !f.series.empty() + !f.range.empty();
  if (given != 1 || f.metric.empty()) {
    return make_error(
        "bisect needs one of --variants a,b,…, --series S or --range GOOD..BAD, and --metric M "
        "(or: bisect resume DIR)");
  }
  RealProcessRunner proc;
  if (!f.series.empty()) {
    auto dir = series_folder(f, exp);
    FL_TRY(dir);
    return series_candidates(exp, f.series, where, proc, *dir, mbox_scratch(f), f.good_patches);
  }
  if (!f.range.empty()) return range_candidates(exp, f.range, where, proc);
  return variant_candidates(exp, f.variants, where);
}

// The log: the resumed one, or a new one in `dir` with the flags as its meta.
Result<BisectLog> start_log(const BisectFlags& f, std::optional<BisectLog>& resumed,
                            const fs::path& dir) {
  if (resumed) return std::move(*resumed);
  auto log = BisectLog::open(dir / "bisect.json");
  if (!log.ok()) return log.error();
  const std::map<std::string, std::string> meta = {
      {"experiment", fs::absolute(f.run.file).string()},
      {"variants", join(f.variants, "\n")},
      {"series", f.series},
      {"good_patches", std::to_string(f.good_patches)},
      {"range", f.range},
      {"from_change_point", f.from_change_point},
      {"metric", f.metric},
      {"where", f.where},
      {"timing", f.run.timing},
      {"max_reps", std::to_string(f.max_reps)},
      {"confirm", std::to_string(f.confirm)}};
  FL_TRY(log->set_meta(meta));
  return log;
}

// The evaluator for the metric's kind: a count's exact values, or a timing's sequential test.
struct Evaluator {
  std::unique_ptr<BisectEvaluator> eval;
  const BisectCandidates* candidates = nullptr;
  std::string predicted;  // timings: the cost line printed before starting
};
Result<Evaluator> evaluator(const BisectFlags& f, BisectCandidates c, const RunSelector& where,
                            SessionRun run) {
  const MetricInfo info = metric_info(f.metric, declared_metrics(c.exp), c.exp.thresholds);
  Evaluator e;
  if (info.kind != MetricKind::kTiming) {
    auto counts = CountBisectEvaluator::make(std::move(c), f.metric, where, std::move(run));
    if (!counts.ok()) return counts.error();
    e.candidates = &(*counts)->candidate_list();
    e.eval = std::move(*counts);
    return e;
  }
  TimingBisectOptions opt;
  opt.plan.max_reps = f.max_reps;
  auto timings = TimingBisectEvaluator::make(std::move(c), f.metric, std::move(run), opt);
  if (!timings.ok()) return timings.error();
  e.candidates = &(*timings)->candidate_list();
  e.predicted = (*timings)->predicted_cost(f.confirm);
  e.eval = std::move(*timings);
  return e;
}

// --server with a push token: each step's and confirmation's session, then the log, so that
// the server's bisection page links every step to what it measured. A failure is a warning:
// the bisection's answer stays the exit status, the local files stay.
void share_bisection(const BisectFlags& f, const fs::path& dir, const BisectLog& log) {
  if (f.run.server.empty()) return;
  auto server = lab_server_ref(f.run.server, f.run.token_file);
  if (!server.ok() || server->token.empty()) {
    fmt::print(stderr, "note: {} keeps no record of this bisection (no push token given)\n",
               f.run.server);
    return;
  }
  std::set<std::string> sessions;
  // A timing's step names its sessions "A, B".
  auto add = [&](std::string_view logged) {
    while (!logged.empty()) {
      const size_t comma = std::min(logged.find(','), logged.size());
      if (!trim(logged.substr(0, comma)).empty()) sessions.emplace(trim(logged.substr(0, comma)));
      logged.remove_prefix(std::min(comma + 1, logged.size()));
    }
  };
  for (const BisectStep& s : log.steps()) add(s.session);
  for (const BisectConfirmation& c : log.confirmations()) {
    for (const std::string& one : c.sessions) add(one);
  }
  Result<void> st;
  for (const std::string& session : sessions) {
    if (auto out = push_session(*server, session); !out.ok()) st = out.error();
  }
  const std::string key = (dir.parent_path().filename() / dir.filename()).string();
  if (st.ok()) st = push_bisection(*server, key, dir / kBisectLogFile);
  if (!st.ok()) {
    fmt::print(stderr, "warning: {} keeps no record of this bisection: {}\n", f.run.server,
               st.error().message);
    return;
  }
  fmt::print(stderr, "pushed: {}/bisections/{}\n", server->url, key);
}

// The regression report of a confirmed culprit, in the bisection's folder (a warning when it
// cannot be written: the bisection's answer stands).
void report_bisection(const BisectFlags& f, const BisectCandidates& c, const BisectOutcome& out,
                      const fs::path& dir) {
  RealProcessRunner proc;
  BisectReportSpec spec{.candidates = &c,
                        .outcome = &out,
                        .metric = f.metric,
                        .scratch = mbox_scratch(f),
                        .cache = f.run.common.cache,
                        .dir = dir,
                        .runner = &proc};
  Result<void> st;
  if (!f.series.empty()) {
    auto folder = series_folder(f, c.exp);
    if (folder.ok())
      spec.series_dir = *folder;
    else
      st = folder.error();
  }
  auto report =
      st.ok() ? bisection_report(spec) : Result<std::optional<RegressionReport>>(st.error());
  if (report.ok() && *report) st = write_regression_files(**report, dir);
  if (!report.ok() || !st.ok()) {
    fmt::print(stderr, "warning: no regression report: {}\n",
               (report.ok() ? st : Result<void>(report.error())).error().message);
  }
}

// The outcome printed, the report written: the exit code.
int print_outcome(const BisectFlags& f, const BisectCandidates& c, const BisectOutcome& out,
                  const fs::path& dir) {
  const BisectTitle title{f.metric, fmt::format("{} {}", c.names.size(), c.kind), f.where};
  fmt::print("{}", bisect_text(title, out, c.names));
  fmt::print("bisection: {}\n", dir.string());
  report_bisection(f, c, out, dir);
  return out.confirmed() ? kExitOk : kExitFailed;
}

}  // namespace

int run_bisection(BisectFlags& f) {
  std::optional<BisectLog> resumed;
  if (!f.resume.empty()) {
    auto opened = BisectLog::open(fs::path(f.resume) / "bisect.json");
    if (!opened.ok()) return fail(opened.error());
    if (auto st = restore_flags(*opened, f); !st.ok()) return fail(st.error());
    resumed.emplace(std::move(*opened));
  }
  auto exp = load(f.run.file, f.run.common, f.run.archs);
  if (!exp) return kExitBadInput;
  if (!f.from_change_point.empty() && !resumed) {
    if (auto st = from_change_point(f, *exp); !st.ok()) return fail(st.error());
  }
  auto choice = choose_backend(f.run, *exp);
  if (!choice.ok()) return fail(choice.error());
  auto where = parse_where(f.where);
  if (!where.ok()) return fail(where.error());
  auto cands = candidates(f, *exp, *where);
  if (!cands.ok()) return fail(cands.error());
  std::unique_ptr<RunContext> context;
  auto eval = evaluator(f, std::move(*cands), *where, [&](const Experiment& e, const auto& runs) {
    return context->run(e, runs, {});
  });
  if (!eval.ok()) return fail(eval.error());
  auto dir = bisect_dir(f, *exp);
  if (!dir.ok()) return fail(dir.error());
  auto log = start_log(f, resumed, *dir);
  if (!log.ok()) return fail(log.error());
  auto made = RunContext::open(f.run, *choice, eval->candidates->exp);
  if (!made.ok()) return fail(made.error());
  context = std::move(*made);
  fmt::print(stderr, "bisection: {} (bisect resume {} continues it)\n", dir->string(),
             dir->string());
  const BisectCandidates& c = *eval->candidates;
  if (!eval->predicted.empty()) fmt::print(stderr, "{}\n", eval->predicted);
  // The index follows the log (bisect.json stays the truth): a warning when it cannot.
  auto index = [&] {
    if (!context->index()) return;
    if (auto st = index_bisection(*context->index(), *dir); !st.ok()) {
      fmt::print(stderr, "warning: the index keeps no record of this bisection: {}\n",
                 st.error().message);
    }
  };
  BisectHooks hooks{.on_step =
                        [&](const BisectStep& s, size_t k, size_t bound) {
                          fmt::print(stderr, "{}\n",
                                     bisect_step_line(s, c.names[s.candidate], k, bound));
                          index();
                        },
                    .on_confirm = [&](const BisectConfirmation&) { index(); }};
  auto out = run_bisect(*eval->eval, *log, f.confirm, hooks);
  index();
  context->finish();
  share_bisection(f, *dir, *log);
  if (!out.ok()) return fail(out.error(), kExitFailed);
  return print_outcome(f, c, *out, *dir);
}

std::function<int()> setup_bisect(CLI::App& app) {
  auto f = std::make_shared<BisectFlags>();
  add_run_flags(app, f->run);
  app.get_option("experiment")->required(false);
  // A bisection makes its own sessions, one per step: run's session flags do not apply.
  for (const char* name : {"--shard", "--resume-dir", "--resume", "--retry-failed"}) {
    app.remove_option(app.get_option(name));
  }
  app.add_option("--variants", f->variants,
                 "knob sets of the experiment in order, the good one first, the bad one last")
      ->delimiter(',');
  app.add_option("--series", f->series,
                 "a patch series under patches/ that the experiment's kernel names: its prefixes");
  app.add_option("--good-patches", f->good_patches,
                 "--series: its first K patches are known good (bisect what the series grew by)");
  app.add_option("--range", f->range,
                 "GOOD..BAD of the kernel's git source: GOOD, then each commit to BAD");
  app.add_option("--from-change-point", f->from_change_point,
                 "a session a change point of --metric starts at (history --change-points): "
                 "bisect what separates its kernel from the one before");
  app.add_option("--metric", f->metric,
                 "the metric to follow: a count, or a timing under icount, KVM or the host");
  app.add_option("--server", f->run.server,
                 "a lab server: --from-change-point reads its history and sessions; kernels "
                 "are fetched from it and shared with it");
  app.add_option("--token-file", f->run.token_file,
                 "its token (a push token shares kernels, the steps' sessions and the log)");
  app.add_option("--where", f->where, "kernel=…,arch=…,workload=…: the one run per knob set");
  CLI::Option* confirm =
      app.add_option("--confirm", f->confirm, "fresh sessions for the culprit against its parent")
          ->capture_default_str();
  app.add_option("--max-reps", f->max_reps, "timings: a step's reps at most (looks 4, 8, 16, …)")
      ->capture_default_str();
  CLI::App* resume = app.add_subcommand("resume", "continue a bisection from its directory");
  resume->fallthrough();  // bisect resume DIR --results R -j 1: the flags are bisect's
  resume->add_option("dir", f->resume, "the bisection directory (results/<exp>/bisect-<stamp>)")
      ->required();
  return [f, confirm] {
    f->confirm_given = confirm->count() > 0;  // else a resumed bisection keeps its own
    if (f->resume.empty() && f->run.file.empty()) {
      return fail(make_error("bisect: an experiment file, or `bisect resume DIR`"));
    }
    return run_bisection(*f);
  };
}

}  // namespace foliolab::cli
