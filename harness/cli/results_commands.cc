#include "cli/results_commands.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "analysis/history.h"
#include "analysis/pairing.h"
#include "analysis/session_report.h"
#include "cli/cli_util.h"
#include "model/loader.h"
#include "report/html.h"
#include "report/render.h"
#include "results/finding_index.h"
#include "results/index.h"
#include "results/index_rebuild.h"
#include "results/session_ref.h"
#include "results/store.h"
#include "server/lab_client.h"
#include "util/cache_root.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

struct TableFlags {
  std::string format = "text";
  std::string html;
  std::string results = default_results_root().string();
  std::string where;
  std::string server, token_file;  // history: the samples of a lab server's index
  void add(CLI::App& app, bool html_flag = true) {
    app.add_option("--format", format, "text | markdown | csv | json")->capture_default_str();
    if (html_flag) app.add_option("--html", html, "also write a self-contained HTML report here");
    app.add_option("--results", results, "results root (holds index.sqlite)")
        ->capture_default_str();
    app.add_option("--where", where,
                   "select runs: kernel=…,arch=…,knobs=…,workload=…,experiment=…,since=…,until=…");
  }
  Result<Format> parsed_format() const {
    Format f;
    if (!parse_format(format, &f)) {
      return make_error(fmt::format("--format {}: use text, markdown, csv or json", format));
    }
    return f;
  }
};

// A selection of indexed runs ("kernel=a,arch=x86_64"), read back from their run files.
Result<Side> selection_side(const std::string& text, const RunQuery& where, const fs::path& root) {
  auto q = parse_run_query(text);
  if (!q.ok()) return q.error();
  auto index = ResultIndex::open(root);
  if (!index.ok()) return index.error();
  auto runs = index->find_runs(merge_queries(*q, where));
  if (!runs.ok()) return runs.error();
  if (runs->empty())
    return make_error(
        fmt::format("selection '{}' matches no indexed run in {}", text, root.string()));
  Side side;
  side.label = text;
  for (const IndexedRun& run : *runs) {
    auto store = ResultStore::open(run.session_dir);
    if (!store.ok()) return store.error();
    auto record = store->load_record(run.run_id);
    if (!record.ok()) return record.error();
    side.records.push_back(std::move(*record));
  }
  return side;
}

// compare --server: a session of the lab server (<experiment>/<stamp>, or `latest` of
// --experiment), fetched into <cache>/lab/<server>/.
Result<Side> server_side(const std::string& ref, const RunQuery& where, const TableFlags& flags,
                         const std::string& experiment) {
  auto server = lab_server_ref(flags.server, flags.token_file);
  FL_TRY(server);
  std::string key = ref;
  if (ref == "latest") {
    auto newest = fetch_sessions(*server, experiment, 1);
    FL_TRY(newest);
    if (newest->empty())
      return make_error(fmt::format("{}: no session of '{}'", flags.server, experiment));
    key = newest->front().key;
  }
  auto dir = fetch_session(*server, key, lab_session_root(cache_root(), *server));
  FL_TRY(dir);
  return session_side(*dir, where);
}

// A session (directory, latest, tag:NAME) or an index selection (contains '=').
Result<Side> resolve_side(const std::string& ref, const RunQuery& where, const fs::path& root,
                          const std::string& experiment) {
  std::error_code ec;
  if (ref.find('=') != std::string::npos && !fs::exists(ref, ec)) {
    return selection_side(ref, where, root);
  }
  auto dir = resolve_session(ref, root, experiment);
  if (!dir.ok()) return dir.error();
  return session_side(*dir, where);
}

// What the candidate session's experiment says about its metrics: custom workloads'
// declarations and `thresholds:`.
void session_metrics(const fs::path& session, CompareOptions* options) {
  auto exp = load_experiment((session / "experiment.yaml").string());
  if (!exp.ok()) return;
  options->declared = declared_metrics(*exp);
  options->thresholds = exp->thresholds;
}

Result<void> write_html(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) return {};
  return write_output(path, write);
}

}  // namespace

std::function<int()> setup_compare(CLI::App& app) {
  auto base = std::make_shared<std::string>();
  auto cand = std::make_shared<std::string>();
  auto flags = std::make_shared<TableFlags>();
  auto experiment = std::make_shared<std::string>();
  auto min_effect = std::make_shared<double>(2.0);
  app.add_option("base", *base, "baseline: session dir, latest, tag:NAME, or key=value selection")
      ->required();
  app.add_option("cand", *cand, "candidate: session dir, latest, tag:NAME, or selection")
      ->required();
  app.add_option("--experiment", *experiment, "experiment whose sessions `latest` means");
  app.add_option("--min-effect", *min_effect, "smallest timing change of interest, in %")
      ->capture_default_str();
  flags->add(app);
  app.add_option("--server", flags->server,
                 "sessions (EXPERIMENT/STAMP, latest) not found here come from this lab server");
  app.add_option("--token-file", flags->token_file, "its token, when reading needs one");
  return [=] {
    auto format = flags->parsed_format();
    if (!format.ok()) return fail(format.error());
    auto where = parse_run_query(flags->where);
    if (!where.ok()) return fail(where.error());
    auto side = [&](const std::string& ref) {
      std::error_code ec;
      return flags->server.empty() || fs::exists(ref, ec)
                 ? resolve_side(ref, *where, flags->results, *experiment)
                 : server_side(ref, *where, *flags, *experiment);
    };
    auto b = side(*base);
    if (!b.ok()) return fail(b.error());
    auto c = side(*cand);
    if (!c.ok()) return fail(c.error());
    CompareOptions options;
    options.min_effect_timing = *min_effect / 100;
    if (fs::is_directory(*cand)) session_metrics(*cand, &options);
    const ComparisonModel model = compare_sides(*b, *c, options);
    if (auto st = write_html(flags->html, [&](std::ostream& o) { write_html(model, {}, o); });
        !st.ok()) {
      return fail(st.error(), kExitFailed);
    }
    (void)write_output("-", [&](std::ostream& o) { render_comparison(model, *format, o); });
    return model.groups.empty() ? fail(make_error("no runs paired between base and candidate"))
                                : kExitOk;
  };
}

// history --change-points: what it found, in the index (replacing each series' earlier ones of
// the metric).
Result<void> record_change_points(ResultIndex& index, const HistoryModel& model) {
  for (const HistorySeries& s : model.series) {
    IndexedChangePoint row{.experiment = s.experiment,
                           .kernel = s.kernel,
                           .arch = s.arch,
                           .knob_set = s.knob_set,
                           .workload = s.workload,
                           .metric = model.metric};
    FL_TRY(clear_change_points(index, row));
    for (const ChangePoint& c : s.change_points) {
      row.before_session = s.points.at(c.index - 1).session;
      row.after_session = s.points.at(c.index).session;
      row.before = c.before;
      row.after = c.after;
      row.method = std::string(change_kind_name(c.kind));
      row.p = std::isfinite(c.p) ? std::optional(c.p) : std::nullopt;
      FL_TRY(add_change_point(index, row));
    }
  }
  return {};
}

// index rebuild: the change points of every metric the old index recorded them for, found
// again from the rebuilt runs with the default rule.
Result<void> recompute_change_points(const fs::path& root,
                                     const std::vector<std::string>& metrics) {
  auto index = ResultIndex::open(root);
  if (!index.ok()) return index.error();
  FL_TRY(index->db().exec("DELETE FROM change_points"));
  for (const std::string& metric : metrics) {
    auto samples = index->samples(metric, {});
    FL_TRY(samples);
    HistoryModel model = build_history(metric, *samples);
    find_change_points(model);
    FL_TRY(record_change_points(*index, model));
  }
  return {};
}

// history --server: the lab server's samples, judged here as a local index's would be (change
// points stay on the server's side: it finds its own).
int server_history(const std::string& metric, const TableFlags& flags, double min_effect) {
  auto server = lab_server_ref(flags.server, flags.token_file);
  if (!server.ok()) return fail(server.error());
  auto samples = fetch_samples(*server, metric, flags.where);
  if (!samples.ok()) return fail(samples.error(), kExitEnvironment);
  CompareOptions options;
  options.min_effect_timing = min_effect / 100;
  HistoryModel model = build_history(metric, *samples, {}, options);
  auto cases = fetch_gate_cases(*server, metric);
  if (!cases.ok()) return fail(cases.error(), kExitEnvironment);
  attach_gate_cases(model, *cases);
  find_change_points(model, {.min_magnitude = options.min_effect_timing});
  if (auto st = write_html(flags.html, [&](std::ostream& o) { write_html(model, o); }); !st.ok()) {
    return fail(st.error(), kExitFailed);
  }
  auto format = flags.parsed_format();
  (void)write_output("-", [&](std::ostream& o) { render_history(model, *format, o); });
  return model.series.empty() ? kExitFailed : kExitOk;
}

std::function<int()> setup_history(CLI::App& app) {
  auto metric = std::make_shared<std::string>();
  auto flags = std::make_shared<TableFlags>();
  auto change_points = std::make_shared<bool>(false);
  auto min_effect = std::make_shared<double>(2.0);
  app.add_option("metric", *metric, "a workload metric or counter delta")->required();
  app.add_flag("--change-points", *change_points,
               "find each series' change points (counts: every step; timings: t-test "
               "split/merge, p <= 0.001)");
  app.add_option("--min-effect", *min_effect,
                 "smallest timing change of interest, in % (vs previous and change points)")
      ->capture_default_str();
  flags->add(app);
  app.add_option("--server", flags->server, "the index of this lab server (http://…)");
  app.add_option("--token-file", flags->token_file, "its token, when reading needs one");
  return [=] {
    auto format = flags->parsed_format();
    if (!format.ok()) return fail(format.error());
    auto where = parse_run_query(flags->where);
    if (!where.ok()) return fail(where.error());
    if (!flags->server.empty()) return server_history(*metric, *flags, *min_effect);
    auto index = ResultIndex::open(flags->results);
    if (!index.ok()) return fail(index.error());
    auto samples = index->samples(*metric, *where);
    if (!samples.ok()) return fail(samples.error(), kExitFailed);
    CompareOptions options;
    options.min_effect_timing = *min_effect / 100;
    HistoryModel model = build_history(*metric, *samples, {}, options);
    if (auto cases = gate_cases_of(*index, *metric); cases.ok()) {
      attach_gate_cases(model, *cases);
    } else {
      fmt::print(stderr, "warning: no gate verdicts: {}\n", cases.error().message);
    }
    if (*change_points) {
      find_change_points(model, {.min_magnitude = options.min_effect_timing});
      if (auto st = record_change_points(*index, model); !st.ok()) {
        fmt::print(stderr, "warning: the index keeps no change points: {}\n", st.error().message);
      }
    }
    if (auto st = write_html(flags->html, [&](std::ostream& o) { write_html(model, o); });
        !st.ok()) {
      return fail(st.error(), kExitFailed);
    }
    (void)write_output("-", [&](std::ostream& o) { render_history(model, *format, o); });
    return model.series.empty() ? kExitFailed : kExitOk;
  };
}

std::function<int()> setup_index(CLI::App& app) {
  auto root = std::make_shared<std::string>(default_results_root().string());
  app.require_subcommand(1);
  CLI::App* rebuild =
      app.add_subcommand("rebuild", "recreate <root>/index.sqlite from the run files");
  rebuild->add_option("root", *root, "results root")->capture_default_str();
  return [=] {
    int warnings = 0;
    auto warn = [&](const std::string& w) {
      ++warnings;
      fmt::print(stderr, "warning: {}\n", w);
    };
    // Change points are derived from the runs: the metrics they were recorded for, if the old
    // index still opens, are looked at again once the runs are back.
    std::vector<std::string> metrics;
    if (auto old = ResultIndex::open(*root); old.ok()) {
      if (auto m = change_point_metrics(*old); m.ok()) metrics = std::move(*m);
    }
    auto n = rebuild_index(*root, warn);
    if (!n.ok()) return fail(n.error(), kExitFailed);
    if (auto st = recompute_change_points(*root, metrics); !st.ok()) warn(st.error().message);
    fmt::print("indexed {} runs into {}\n", *n, (fs::path(*root) / kIndexFile).string());
    return warnings == 0 ? kExitOk : kExitFailed;
  };
}

std::function<int()> setup_baseline(CLI::App& app) {
  auto session = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto root = std::make_shared<std::string>(default_results_root().string());
  app.require_subcommand(1);
  CLI::App* tag =
      app.add_subcommand("tag", "name a session as a baseline (gate --baseline tag:NAME)");
  tag->add_option("session", *session, "results session directory")->required();
  tag->add_option("name", *name, "tag name")->required();
  tag->add_option("--results", *root, "results root")->capture_default_str();
  return [=] {
    if (auto st = tag_session(*root, *session, *name); !st.ok()) return fail(st.error());
    fmt::print("tag:{} → {}\n", *name, *session);
    return kExitOk;
  };
}

}  // namespace foliolab::cli
