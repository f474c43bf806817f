#include "cli/bisect_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>
#include <memory>

#include "cli/run_setup.h"
#include "model/arch.h"
#include "report/bisect.h"
#include "results/index.h"
#include "runner/bisect_driver.h"
#include "runner/bisect_variants.h"
#include "util/fs_ops.h"
#include "util/text.h"

namespace foliolab::cli {
namespace fs = std::filesystem;
namespace {

struct BisectFlags {
  RunFlags run;  // the experiment and how its sessions run (backend, accel, -j, --results, ...)
  std::vector<std::string> variants;
  std::string metric, where;
  int confirm = 3;
  std::string resume;  // `bisect resume DIR`
};

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
Status restore_flags(const BisectLog& log, BisectFlags& f) {
  const auto& m = log.meta();
  if (!m.count("experiment") || !m.count("variants") || !m.count("metric")) {
    return make_error(f.resume + "/bisect.json: not a started bisection (no experiment recorded)");
  }
  f.run.file = m.at("experiment");
  f.variants.clear();
  for (std::string_view v : split_lines(m.at("variants"))) f.variants.emplace_back(v);
  f.metric = m.at("metric");
  f.where = m.count("where") ? m.at("where") : "";
  return {};
}

int bisect(BisectFlags& f) {
  std::optional<BisectLog> log;
  if (!f.resume.empty()) {
    auto opened = BisectLog::open(fs::path(f.resume) / "bisect.json");
    if (!opened.ok()) return fail(opened.error());
    if (auto st = restore_flags(*opened, f); !st.ok()) return fail(st.error());
    log.emplace(std::move(*opened));
  }
  if (f.variants.empty() || f.metric.empty()) {
    return fail(make_error("bisect needs --variants a,b,… and --metric M (or: bisect resume DIR)"));
  }
  auto exp = load(f.run.file, f.run.common, f.run.archs);
  if (!exp) return kExitBadInput;
  auto choice = choose_backend(f.run, *exp);
  if (!choice.ok()) return fail(choice.error());
  auto where = parse_where(f.where);
  if (!where.ok()) return fail(where.error());
  VariantBisectSpec spec{.variants = f.variants, .metric = f.metric, .where = *where};
  std::unique_ptr<RunContext> context;
  auto eval = VariantBisectEvaluator::make(
      *exp, spec, [&](const std::vector<Run>& runs) { return context->run(*exp, runs, {}); });
  if (!eval.ok()) return fail(eval.error());
  auto dir = bisect_dir(f, *exp);
  if (!dir.ok()) return fail(dir.error());
  if (!log) {
    auto opened = BisectLog::open(*dir / "bisect.json");
    if (!opened.ok()) return fail(opened.error());
    log.emplace(std::move(*opened));
    const std::map<std::string, std::string> meta = {
        {"experiment", fs::absolute(f.run.file).string()},
        {"variants", join(f.variants, "\n")},
        {"metric", f.metric},
        {"where", f.where}};
    if (auto st = log->set_meta(meta); !st.ok()) return fail(st.error());
  }
  auto made = RunContext::open(f.run, *choice, *exp);
  if (!made.ok()) return fail(made.error());
  context = std::move(*made);
  fmt::print(stderr, "bisection: {} (bisect resume {} continues it)\n", dir->string(),
             dir->string());
  std::vector<std::string> names;
  for (size_t i = 0; i < spec.variants.size(); ++i) names.push_back((*eval)->describe(i));
  BisectHooks hooks{.on_step = [&](const BisectStep& s, size_t k, size_t bound) {
    fmt::print(stderr, "{}\n", bisect_step_line(s, names[s.candidate], k, bound));
  }};
  auto out = run_bisect(**eval, *log, f.confirm, hooks);
  context->finish();
  if (!out.ok()) return fail(out.error(), kExitFailed);
  const BisectTitle title{f.metric, fmt::format("{} knob sets", names.size()), f.where};
  fmt::print("{}", bisect_text(title, *out, names));
  fmt::print("bisection: {}\n", dir->string());
  return out->confirmed() ? kExitOk : kExitFailed;
}

}  // namespace

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
  app.add_option("--metric", f->metric, "the count to follow (a workload metric or counter)");
  app.add_option("--where", f->where, "kernel=…,arch=…,workload=…: the one run per knob set");
  app.add_option("--confirm", f->confirm, "fresh sessions for the culprit against its parent")
      ->capture_default_str();
  CLI::App* resume = app.add_subcommand("resume", "continue a bisection from its directory");
  resume->fallthrough();  // bisect resume DIR --results R -j 1: the flags are bisect's
  resume->add_option("dir", f->resume, "the bisection directory (results/<exp>/bisect-<stamp>)")
      ->required();
  return [f] {
    if (f->resume.empty() && f->run.file.empty()) {
      return fail(make_error("bisect: an experiment file, or `bisect resume DIR`"));
    }
    return bisect(*f);
  };
}

}  // namespace foliolab::cli
