#include "cli/gate_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <memory>

#include "analysis/gate.h"
#include "analysis/known_issues.h"
#include "analysis/pairing.h"
#include "analysis/regression.h"
#include "bisect/bisect_report.h"
#include "catalog/workload_check.h"
#include "cli/bisect_command.h"
#include "cli/regression_files.h"
#include "cli/results_commands.h"
#include "model/known_issue.h"
#include "model/loader.h"
#include "model/problems.h"
#include "report/gate_layout.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/render.h"
#include "results/finding_index.h"
#include "results/index.h"
#include "results/session_ref.h"
#include "results/store.h"
#include "server/lab_client.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab::cli {
namespace fs = std::filesystem;
namespace {

// The gate's baseline session: `latest` is the newest indexed session of the experiment
// before the candidate; else a directory or tag:NAME.
Result<fs::path> gate_baseline(const std::string& baseline, const fs::path& results,
                               const Experiment& exp, const fs::path& cand_dir) {
  if (baseline != "latest") return resolve_session(baseline, results, exp.name);
  auto index = ResultIndex::open(results);
  if (!index.ok()) return index.error();
  auto sessions = index->sessions(exp.name);
  if (!sessions.ok()) return sessions.error();
  const std::string me = exp.name + "/" + cand_dir.filename().string();
  fs::path base_dir;
  for (const std::string& s : *sessions) {
    if (s < me) base_dir = results / s;
  }
  if (base_dir.empty()) {
    return make_error(fmt::format("no indexed session of '{}' before {}", exp.name, me));
  }
  return base_dir;
}

// --server: the baseline from a lab server, fetched into <cache>/lab/<server>/: `latest` is the
// server's newest session of the experiment before the candidate's stamp.
Result<fs::path> server_baseline(const GateFlags& f, const Experiment& exp,
                                 const fs::path& cand_dir) {
  auto server = lab_server_ref(f.server, f.token_file);
  FL_TRY(server);
  std::string key = f.baseline;
  if (key == "latest") {
    auto sessions = fetch_sessions(*server, exp.name, 1000);
    FL_TRY(sessions);
    key.clear();
    for (const PushedSession& s : *sessions) {  // newest first
      if (s.stamp < cand_dir.filename().string()) {
        key = s.key;
        break;
      }
    }
    if (key.empty()) {
      return make_error(fmt::format("{} has no session of '{}' before {}", server->url, exp.name,
                                    cand_dir.filename().string()));
    }
  }
  return fetch_session(*server, key, lab_session_root(f.run.common.cache, *server));
}

// --junit and --markdown: the JUnit XML and the Markdown summary, where asked for; gate.json
// in the candidate session always.
Result<void> write_gate_files(const GateReport& report, const std::string& suite,
                              const GateFlags& f, const fs::path& cand_dir) {
  if (!f.junit.empty()) {
    FL_TRY(write_output(f.junit, [&](std::ostream& o) { write_junit(report, suite, o); }));
  }
  if (!f.markdown.empty()) {
    FL_TRY(write_output(f.markdown,
                        [&](std::ostream& o) { render_gate(report, Format::kMarkdown, o); }));
  }
  return write_output((cand_dir / "gate.json").string(),
                      [&](std::ostream& o) { o << gate_json(report).dump(2) << "\n"; });
}

Result<std::chrono::year_month_day> gate_today(const std::string& text) {
  if (text.empty()) {
    return std::chrono::year_month_day(
        std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()));
  }
  auto d = parse_iso_date(text);
  if (!d) return make_error("--today " + text + ": expected a date YYYY-MM-DD");
  return *d;
}

// The known-issues file, read before anything is rerun; each entry's metric is checked against
// the candidate's workloads as the experiment's own gate rules are (check_metric).
Result<std::vector<KnownIssue>> load_known_file(const GateFlags& f, const Experiment& exp) {
  if (f.known_issues.empty()) return std::vector<KnownIssue>{};
  auto issues = load_known_issues(f.known_issues);
  FL_TRY(issues);
  Problems out;
  for (size_t i = 0; i < issues->size(); ++i) {
    const KnownIssue& k = (*issues)[i];
    if (Result<void> st = check_metric(exp, k.runs, k.metric); !st.ok()) {
      out.add(k.metric_loc, fmt::format("known_issues[{}].metric", i), st.error().message);
    }
  }
  FL_TRY(out.status());
  return issues;
}

Result<void> apply_known_file(const GateFlags& f, const std::vector<KnownIssue>& issues,
                              GateReport& report) {
  if (f.known_issues.empty()) return {};
  auto today = gate_today(f.today);
  FL_TRY(today);
  apply_known_issues(report, issues, *today);
  return {};
}

// What the gate judged, before --confirm and --known-issues.
struct Judged {
  fs::path cand_dir, base_dir;
  Experiment exp;  // the candidate's, as its session stored it
  CompareOptions options;
  GateReport report;
};

Result<Judged> judge(const GateFlags& f) {
  auto where = parse_run_query(f.where);
  FL_TRY(where);
  auto cand_store = ResultStore::open(f.cand);
  FL_TRY(cand_store);
  Judged j{.cand_dir = cand_store->dir()};
  auto exp = load_experiment((j.cand_dir / "experiment.yaml").string());
  FL_TRY(exp);
  j.exp = std::move(*exp);
  if (j.exp.gate_rules.empty()) return make_error(j.exp.file + " has no gate: block");
  auto base_dir = f.server.empty() ? gate_baseline(f.baseline, f.run.results, j.exp, j.cand_dir)
                                   : server_baseline(f, j.exp, j.cand_dir);
  FL_TRY(base_dir);
  j.base_dir = *base_dir;
  auto b = session_side(j.base_dir, *where);
  FL_TRY(b);
  auto c = session_side(j.cand_dir, *where);
  FL_TRY(c);
  j.options.declared = declared_metrics(j.exp);
  j.options.thresholds = j.exp.thresholds;
  for (const GateRule& r : j.exp.gate_rules) j.options.keep.push_back(r.metric);
  j.report = evaluate_gate(j.exp.gate_rules, compare_sides(*b, *c, j.options));
  j.report.comparison.kind = "gate";
  return j;
}

// --confirm N: the failing cases rerun, each side from its own session's experiment.
Result<GateReport> confirm_failures(const GateFlags& f, Judged& j, const GateSessions& sessions) {
  if (f.confirm <= 0 || j.report.failed == 0) return std::move(j.report);
  auto base_exp = load_experiment((j.base_dir / "experiment.yaml").string());
  FL_TRY(base_exp);
  const GateConfirmSpec spec{.rules = j.exp.gate_rules,
                             .base = *base_exp,
                             .cand = j.exp,
                             .options = j.options,
                             .rounds = f.confirm};
  auto out = confirm_gate_failures(std::move(j.report), spec, sessions.run);
  if (sessions.finish) sessions.finish();
  return out;
}

// The candidate's gate.json into the index of its results root (its known-issue matches), when
// the session is one of that root's: a warning when it cannot be.
void index_gate_json(const GateFlags& f, const fs::path& cand_dir) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(f.run.results, ec);
  if (fs::weakly_canonical(cand_dir, ec).parent_path().parent_path() != root) return;
  auto index = ResultIndex::open(root);
  const std::string session =
      cand_dir.parent_path().filename().string() + "/" + cand_dir.filename().string();
  Result<void> st =
      index.ok() ? index_gate_file(index->db(), root, session) : Result<void>(index.error());
  if (!st.ok())
    fmt::print(stderr, "warning: the index keeps no gate record: {}\n", st.error().message);
}

// --server with a token: the candidate (pushed if the server lacks it; a push is idempotent)
// and its gate.json, so that the server's history shows the verdicts. A failure is a warning:
// the verdict and the exit status are the gate's, and the local files stay.
void share_gate_verdicts(const GateFlags& f, const fs::path& cand_dir) {
  if (f.server.empty()) return;
  auto server = lab_server_ref(f.server, f.token_file);
  if (!server.ok() || server->token.empty()) {
    fmt::print(stderr, "note: {} keeps no verdict of this gate (no push token given)\n", f.server);
    return;
  }
  auto pushed = push_session(*server, cand_dir);
  auto text = pushed.ok() ? read_file(cand_dir / "gate.json") : Result<std::string>(pushed.error());
  Result<void> st =
      text.ok() ? push_gate_report(*server, pushed->key, *text) : Result<void>(text.error());
  if (!st.ok()) {
    fmt::print(stderr, "warning: {} keeps no verdict of this gate: {}\n", f.server,
               st.error().message);
    return;
  }
  fmt::print(stderr, "{}: the verdicts on {} are stored\n", f.server, pushed->key);
}

// "<experiment>/<stamp>" of a session folder: what a report names it by.
std::string session_key(const fs::path& dir) {
  return (dir.parent_path().filename() / dir.filename()).string();
}

// The record of the run a comparison variant names ("<session>/<run id>") among `records`.
const RunRecord* variant_record(const std::vector<RunRecord>& records, const VariantInfo& v) {
  if (v.runs.empty()) return nullptr;
  const std::string id = v.runs[0].substr(v.runs[0].rfind('/') + 1);
  for (const RunRecord& r : records) {
    if (r.id.run_id == id) return &r;
  }
  return nullptr;
}

// One regression report per change the confirmed failures share (analysis/regression.h), in
// CAND/regressions/<k>/: what the gate knows before a bisection names a culprit.
Result<void> report_gate_regressions(const GateFlags& f, const GateReport& report,
                                     const Judged& j) {
  if (f.confirm <= 0 || report.failed == 0) return {};
  auto store = ResultStore::open(j.cand_dir);
  FL_TRY(store);
  auto records = store->load_all();
  FL_TRY(records);
  const auto groups = group_gate_failures(report);
  for (size_t k = 0; k < groups.size(); ++k) {
    const GateCase& head = report.cases[groups[k][0]];
    const ComparisonGroup& g = report.comparison.groups[static_cast<size_t>(head.group_index)];
    const RunRecord* first =
        g.variants.size() > 1 ? variant_record(*records, g.variants[1]) : nullptr;
    if (!first) continue;
    RegressionReport r = regression_of(g, head.metric, {"baseline", "candidate"}, *first);
    r.origin = fmt::format("gate of {} against {}, confirmed in {} reruns", session_key(j.cand_dir),
                           session_key(j.base_dir), f.confirm);
    for (size_t i = 1; i < groups[k].size(); ++i) {
      const GateCase& c = report.cases[groups[k][i]];
      r.also_fails.push_back(fmt::format("{} · {}: {}", c.group, c.metric, gate_message(c)));
    }
    r.config_diff = kernel_config_difference(f.run.common.cache, r.columns[0].build_id,
                                             r.columns.size() > 1 ? r.columns[1].build_id : "");
    r.reproduce = fmt::format(
        "foliolab gate CAND --baseline BASE --confirm {} --bisect (CAND {}, "
        "BASE {}): its bisection's report names the culprit",
        f.confirm, session_key(j.cand_dir), session_key(j.base_dir));
    FL_TRY(write_regression_files(r, j.cand_dir / "regressions" / std::to_string(k + 1)));
  }
  return {};
}

// --bisect: the first confirmed failure a bisection can walk, bisected after the report.
void bisect_failure(const GateFlags& f, const GateReport& report, const Judged& j,
                    const GateSessions& sessions) {
  if (!f.bisect || report.failed == 0 || !sessions.bisect) return;
  auto b = gate_bisect(report, j.base_dir, j.cand_dir, f.run.common.cache);
  if (!b.ok()) {
    fmt::print(stderr, "gate --bisect: {}\n", b.error().message);
    return;
  }
  for (const std::string& why : b->passed_over) {
    fmt::print(stderr, "gate --bisect: not bisected: {}\n", why);
  }
  fmt::print(stderr, "gate --bisect: {}: bisect {} --metric {} --where {}\n", b->case_name,
             b->origin.flag(), b->metric, b->where);
  const int code = sessions.bisect(*b, j.cand_dir);
  fmt::print(stderr, "gate --bisect: the bisection ended with exit {}\n", code);
}

// --bisect in the CLI: the bisection of a confirmed failure, from the candidate session's
// experiment.yaml, its sessions in CAND/bisect/ (so `--baseline latest` never takes one).
int bisect_in_candidate(const GateFlags& f, const GateBisect& b, const fs::path& cand_dir) {
  BisectFlags bf{.run = f.run};
  bf.run.file = (cand_dir / "experiment.yaml").string();
  bf.run.results = (cand_dir / "bisect").string();
  bf.series = b.origin.series;
  bf.good_patches = b.origin.good_patches;
  bf.range = b.origin.range;
  bf.metric = b.metric;
  bf.where = b.where;
  bf.confirm = f.confirm;
  if (auto st = make_dirs(bf.run.results); !st.ok()) return fail(st.error());
  return run_bisection(bf);
}

}  // namespace

int run_gate(const GateFlags& f, const GateSessions& sessions) {
  Format format;
  if (!parse_format(f.format, &format)) {
    return fail(make_error(fmt::format("--format {}: use text, markdown, csv or json", f.format)));
  }
  if (f.confirm < 0) return fail(make_error("--confirm: a number of reruns, 0 or more"));
  if (f.bisect && f.confirm == 0) {
    return fail(make_error("--bisect bisects confirmed failures: give --confirm N too"));
  }
  auto judged = judge(f);
  if (!judged.ok()) return fail(judged.error());
  auto known = load_known_file(f, judged->exp);
  if (!known.ok()) return fail(known.error());
  auto report = confirm_failures(f, *judged, sessions);
  if (!report.ok()) return fail(report.error(), kExitEnvironment);
  if (auto st = apply_known_file(f, *known, *report); !st.ok()) return fail(st.error());
  if (auto st = write_gate_files(*report, judged->exp.name, f, judged->cand_dir); !st.ok()) {
    return fail(st.error());
  }
  if (auto st = report_gate_regressions(f, *report, *judged); !st.ok()) {
    fmt::print(stderr, "warning: no regression report: {}\n", st.error().message);
  }
  index_gate_json(f, judged->cand_dir);
  share_gate_verdicts(f, judged->cand_dir);
  (void)write_output("-", [&](std::ostream& o) { render_gate(*report, format, o); });
  bisect_failure(f, *report, *judged, sessions);
  return report->failed > 0 ? kExitFailed : report->infra > 0 ? kExitEnvironment : kExitOk;
}

std::function<int()> setup_gate(CLI::App& app) {
  auto f = std::make_shared<GateFlags>();
  add_run_flags(app, f->run);
  // The gate judges two sessions; --confirm makes its own: run's session flags do not apply.
  for (const char* name : {"experiment", "--arch", "--shard", "--resume-dir", "--resume",
                           "--retry-failed", "--repeat-until-ci"}) {
    app.remove_option(app.get_option(name));
  }
  app.add_option("cand", f->cand, "candidate session directory")->required();
  app.add_option("--baseline", f->baseline,
                 "PATH | latest | tag:NAME; with --server: latest | EXPERIMENT/STAMP")
      ->required();
  app.add_option("--server", f->server,
                 "take the baseline from this lab server (http://…); with a push token, the "
                 "candidate and the verdicts go to it too");
  app.add_option("--token-file", f->token_file,
                 "its token (0600; else $FOLIOLAB_TOKEN): read, or push to store the verdicts");
  app.add_option("--junit", f->junit, "write JUnit XML here");
  app.add_option("--markdown", f->markdown, "write a Markdown summary here");
  app.add_option("--format", f->format, "text | markdown | csv | json")->capture_default_str();
  app.add_option("--where", f->where, "select runs: kernel=…,arch=…,knobs=…,workload=…");
  app.add_option("--confirm", f->confirm,
                 "rerun a failing case N times (fresh baseline and candidate boots, interleaved): "
                 "it fails only if the reruns fail again, else it is flaky");
  app.add_option("--known-issues", f->known_issues,
                 "a reviewed YAML file of expected failures with expiry dates "
                 "(examples/known-issues.yaml)");
  app.add_flag("--bisect", f->bisect,
               "bisect the first confirmed failure whose kernels differ by a series or a git "
               "range (in CAND/bisect/)");
  app.add_option("--today", f->today, "the date known issues expire against (default: UTC today)");
  return [f] {
    // The reruns' sessions go into the candidate session (CAND/confirm/<experiment>/<stamp>,
    // with their own index), so that `--baseline latest` never takes one for a baseline.
    auto flags = std::make_shared<RunFlags>(f->run);
    flags->results = (fs::path(f->cand) / "confirm").string();
    auto context = std::make_shared<std::unique_ptr<RunContext>>();
    GateSessions sessions{
        .run = [flags, context](const Experiment& exp,
                                const std::vector<Run>& runs) -> Result<SessionSummary> {
          Experiment e = exp;
          auto choice = choose_backend(*flags, e);
          if (!choice.ok()) return choice.error();
          if (!*context) {
            FL_TRY(make_dirs(flags->results));
            auto made = RunContext::open(*flags, *choice, e);
            if (!made.ok()) return made.error();
            *context = std::move(*made);
          }
          return (*context)->run(e, runs, {});
        },
        .finish =
            [context] {
              if (*context) (*context)->finish();
            },
        .bisect = [f](const GateBisect& b,
                      const fs::path& cand_dir) { return bisect_in_candidate(*f, b, cand_dir); }};
    return run_gate(*f, sessions);
  };
}

}  // namespace foliolab::cli
