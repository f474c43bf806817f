#include "cli/try_command.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>

#include "analysis/regression.h"
#include "analysis/session_report.h"
#include "bisect/bisect_report.h"
#include "bisect/reproduce.h"
#include "cli/regression_files.h"
#include "cli/run_setup.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "results/store.h"
#include "util/fs.h"

namespace foliolab::cli {
namespace fs = std::filesystem;
namespace {

struct TryFlags {
  RunFlags run;
  std::string fix, on;
};

// What the report says: its headline metric, culprit and reproduce folder.
struct Reported {
  std::string metric, culprit, origin;
  fs::path reproduce;
};

Result<Reported> read_report(const fs::path& dir) {
  auto text = read_file(dir / kRegressionJson);
  FL_TRY(text);
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("reproduce") || !j["reproduce"].contains("dir") ||
      j["reproduce"]["dir"].get<std::string>().empty()) {
    return make_error((dir / kRegressionJson).string() +
                      ": not a regression report with a reproduce folder (a bisection's report "
                      "has one; a gate's names the bisection to run first)");
  }
  Reported r{.metric = j.value("metric", ""),
             .culprit = j.value("culprit", ""),
             .origin = j.value("origin", ""),
             .reproduce = j["reproduce"]["dir"].get<std::string>()};
  if (r.reproduce.is_relative()) r.reproduce = dir / r.reproduce;
  return r;
}

// One session of the try experiment's runs; its directory.
Result<fs::path> run_try(const RunFlags& f) {
  auto exp = load(f.file, f.common, f.archs);
  if (!exp) return make_error(f.file + ": not a valid experiment (see above)");
  auto choice = choose_backend(f, *exp);
  FL_TRY(choice);
  auto context = RunContext::open(f, *choice, *exp);
  if (!context.ok()) return context.error();
  auto summary = (*context)->run(*exp, expand(*exp), {});
  (*context)->finish();
  FL_TRY(summary);
  return summary->dir;
}

Result<RegressionReport> tried(const TryExperiment& t, const Reported& rep, const fs::path& dir) {
  auto exp = load_experiment(t.file.string());
  FL_TRY(exp);
  auto store = ResultStore::open(dir);
  FL_TRY(store);
  auto records = store->load_all();
  FL_TRY(records);
  const RunRecord* first = nullptr;
  GroupRuns g = kernel_columns(*records, t.columns, &first);
  for (const VariantRuns& v : g.variants) {
    if (v.runs.empty())
      return make_error(fmt::format("{}: no completed run of {}", dir.string(), v.label));
  }
  CompareOptions options{
      .declared = declared_metrics(*exp), .thresholds = exp->thresholds, .keep = {rep.metric}};
  std::vector<std::string> labels;
  for (const auto& [label, kernel] : t.columns) labels.push_back(label);
  RegressionReport r = regression_of(compare_group(g, options), rep.metric, labels, *first);
  judge_fixes(r);
  r.culprit = rep.culprit;
  r.origin = fmt::format("try of {} on the report of {}", t.file.filename().string(), rep.origin);
  r.reproduce_dir = rep.reproduce.string();
  r.reproduce = reproduce_command();
  return r;
}

int run_try_command(TryFlags& f) {
  auto rep = read_report(f.on);
  if (!rep.ok()) return fail(rep.error());
  auto t = write_try_experiment(rep->reproduce, fs::absolute(f.fix));
  if (!t.ok()) return fail(t.error());
  f.run.file = t->file.string();
  const fs::path out = fs::path(f.on) / ("try-" + fs::path(f.fix).stem().string());
  if (f.run.results.empty() || f.run.results == default_results_root().string()) {
    f.run.results = (out / "results").string();
  }
  auto session = run_try(f.run);
  if (!session.ok()) return fail(session.error(), kExitFailed);
  auto report = tried(*t, *rep, *session);
  if (!report.ok()) return fail(report.error(), kExitFailed);
  if (auto st = write_regression_files(*report, out); !st.ok()) return fail(st.error());
  bool fixed = !report->fixes.empty();
  for (size_t i = 0; i < report->fixes.size(); ++i) {
    fmt::print("{}: {}\n", report->columns[i + 2].label, fix_verdict_name(report->fixes[i]));
    fixed = fixed && report->fixes[i] == FixVerdict::kFixed;
  }
  return fixed ? kExitOk : kExitFailed;
}

}  // namespace

std::function<int()> setup_try(CLI::App& app) {
  auto f = std::make_shared<TryFlags>();
  add_run_flags(app, f->run);
  app.remove_option(app.get_option("experiment"));
  for (const char* name : {"--shard", "--resume-dir", "--resume", "--retry-failed"}) {
    app.remove_option(app.get_option(name));
  }
  app.add_option("fix", f->fix, "the fix: a patch applied after the culprit's patches")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--on", f->on, "the regression report's folder (a bisection's)")
      ->required()
      ->check(CLI::ExistingDirectory);
  return [f] { return run_try_command(*f); };
}

}  // namespace foliolab::cli
