#include "cli/commands.h"

#include <unistd.h>
#include <algorithm>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/session_report.h"
#include "backend/backend.h"
#include "backend/backend_table.h"
#include "backend/libvirt_backend.h"
#include "catalog/validate.h"
#include "cli/cli_util.h"
#include "cli/merge_command.h"
#include "cli/progress.h"
#include "cli/results_commands.h"
#include "cli/timing_flag.h"
#include "cli/workload_commands.h"
#include "image/image_builder.h"
#include "kernel/builder.h"
#include "kernel/cache_store.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "model/shard.h"
#include "report/html.h"
#include "report/layout.h"
#include "report/plan_cost.h"
#include "report/render.h"
#include "results/index.h"
#include "results/store.h"
#include "runner/experiment_runner.h"
#include "runner/plan_cost.h"
#include "runner/scheduler.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

struct Common {
  std::string root = project_root().string();  // --root, FOLIOLAB_ROOT or the source tree
  std::string cache = cache_root().string();
  void add(CLI::App& app) {
    app.add_option("--root", root, "project root (kernel-config/, patches/, workloads/)");
    app.add_option("--cache", cache, "cache for sources, kernels and images (FOLIOLAB_CACHE)");
  }
};

void log_line(const std::string& s) { fmt::print(stderr, "{}\n", s); }

// Loads, validates and optionally filters an experiment; prints errors.
std::optional<Experiment> load(const std::string& file, const Common& c,
                               const std::vector<std::string>& archs) {
  auto exp = load_experiment(file);
  if (!exp.ok()) {
    fmt::print(stderr, "error: {}\n", exp.error().message);
    return std::nullopt;
  }
  if (auto st = validate_project(*exp, c.root, read_host_facts()); !st.ok()) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return std::nullopt;
  }
  if (auto st = validate_backend(*exp); !st.ok()) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return std::nullopt;
  }
  if (!archs.empty()) {
    std::vector<Arch> keep;
    for (const auto& a : archs) {
      auto parsed = parse_arch(a);
      if (!parsed) {
        fmt::print(stderr, "error: --arch {}: unknown architecture (x86_64, arm64)\n", a);
        return std::nullopt;
      }
      if (std::find(exp->archs.begin(), exp->archs.end(), *parsed) != exp->archs.end())
        keep.push_back(*parsed);
    }
    exp->archs = keep;
  }
  return std::move(*exp);
}

// What the plan will build and how long that should take (nothing is built).
int print_plan_cost(const Experiment& exp, const std::vector<Run>& runs, const Common& common,
                    const std::string& results_root) {
  RealProcessRunner proc;
  KernelBuilder kernels(proc, {.project_root = common.root,
                               .spec_dir = fs::path(exp.file).parent_path(),
                               .cache = common.cache});
  ImageBuilder images(proc, common.root, common.cache);
  const BackendEntry* backend = find_backend(exp.machine.backend);
  // Only an index that is there: plan creates nothing.
  auto index = path_exists(fs::path(results_root) / "index.sqlite")
                   ? ResultIndex::open(results_root)
                   : Result<ResultIndex>(make_error("no index"));
  auto cost = plan_cost(exp, runs, kernels, images, !backend || backend->needs.kernel,
                        past_kernel_builds(common.cache), index.ok() ? &*index : nullptr);
  if (!cost.ok()) return fail(cost.error());
  fmt::print("{}", plan_cost_text(*cost));
  return kExitOk;
}

std::function<int()> setup_plan(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto common = std::make_shared<Common>();
  auto archs = std::make_shared<std::vector<std::string>>();
  auto shard_text = std::make_shared<std::string>();
  app.add_option("experiment", *file, "experiment YAML file")->required();
  app.add_option("--arch", *archs, "only these architectures");
  app.add_option("--shard", *shard_text,
                 "only the runs of slice K of N (as `run --shard K/N` would run them)");
  auto results = std::make_shared<std::string>(default_results_root().string());
  app.add_option("--results", *results, "results root whose past runs time the guests");
  common->add(app);
  return [=] {
    auto exp = load(*file, *common, *archs);
    if (!exp) return kExitBadInput;
    auto runs = expand(*exp);
    if (auto refused = timing_refused(*exp, runs)) return *refused;
    fmt::print("plan {}\n", plan_hash(runs));
    if (!shard_text->empty()) {
      auto shard = parse_shard(*shard_text);
      if (!shard.ok()) return fail(shard.error());
      runs = shard_runs(runs, *shard);
      fmt::print("shard {}: {} run(s)\n", shard->text(), runs.size());
    }
    fmt::print("{}{}", format_plan(*exp, runs), format_time_estimate(*exp, runs));
    return print_plan_cost(*exp, runs, *common, *results);
  };
}

std::string fmt_time(std::time_t t) {
  if (t == 0) return "-";
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

void print_gc(const GcResult& r, bool dry_run) {
  for (const auto& it : r.evicted) {
    fmt::print("{} {} {} ({}, last used {})\n", dry_run ? "would remove" : "removed",
               cache_kind_name(it.kind), it.id, human_bytes(it.bytes), fmt_time(it.last_used));
  }
  for (const auto& it : r.held) {
    fmt::print("kept {} {}: in use by a running foliolab\n", cache_kind_name(it.kind), it.id);
  }
  fmt::print("cache: {} -> {}{}\n", human_bytes(r.before), human_bytes(r.after),
             dry_run ? " (dry run)" : "");
  if (!r.note.empty()) fmt::print(stderr, "note: {}\n", r.note);
}

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

// `foliolab run`'s flags.
struct RunFlags {
  std::string file;
  Common common;
  std::vector<std::string> archs;
  std::string results = default_results_root().string();
  std::string resume;
  bool resume_latest = false;
  bool retry = false;
  int make_jobs = 0;
  int guests = 0;
  std::string accel;
  std::string timing;
  std::string shard;
  std::string connect;
  std::string backend;
  std::string hosts;
  std::string repeat_ci;  // --repeat-until-ci
  bool quiet = false;
  bool verbose = false;
  Verbosity verbosity() const {
    return quiet ? Verbosity::kQuiet : verbose ? Verbosity::kVerbose : Verbosity::kNormal;
  }
};

void add_run_flags(CLI::App& app, RunFlags& f) {
  app.add_option("experiment", f.file, "experiment YAML file")->required();
  app.add_option("--arch", f.archs, "only these architectures");
  app.add_option("--shard", f.shard,
                 "run only slice K of N of the plan (K/N, 1-based; `foliolab merge` joins them)");
  std::string backends_doc = "backend (overrides machine.backend):";
  for (const auto& e : backend_table()) backends_doc += fmt::format("\n  {}: {}", e.name, e.doc);
  app.add_option("--backend", f.backend, backends_doc)->check(CLI::IsMember(backend_names()));
  app.add_option("--accel", f.accel,
                 "auto | kvm | tcg (overrides machine.accel; auto: KVM only if a probe boot works)")
      ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  add_timing_flag(app, f.timing);
  app.add_option(
      "--connect", f.connect,
      fmt::format("libvirt URI (overrides machine.connect; default {})", kDefaultLibvirtUri));
  app.add_option("--hosts", f.hosts,
                 "a pool of libvirt hosts: URI[*slots],URI... or a YAML file `hosts: [{uri, "
                 "slots}]` (implies --backend libvirt; runs go to free slots, a lost host's runs "
                 "move to another; default -j: all slots)");
  app.add_option("--results", f.results, "results root (default: <root>/results)");
  app.add_option("--resume-dir", f.resume, "continue this results session (skips runs it has)");
  app.add_flag("--resume", f.resume_latest,
               "continue the newest results session of this experiment");
  app.add_flag("--retry-failed", f.retry, "with --resume: rerun runs that failed");
  app.add_option(
         "-j,--jobs", f.guests,
         "guests at once (default: host cores, bounded by free memory over the guest's RAM)")
      ->check(CLI::PositiveNumber);
  app.add_option("--make-jobs", f.make_jobs,
                 "parallel make jobs for kernel builds (default: all CPUs)");
  app.add_option("--repeat-until-ci", f.repeat_ci,
                 "adaptive reps: until the 95% CI of each watched timing is within this (2%)");
  app.add_flag("--quiet,-q", f.quiet, "only failures, warnings and the final report");
  app.add_flag("--verbose,-v", f.verbose, "a line as each run starts and ends");
  f.common.add(app);
}

// Applies --accel, --timing, --backend, --connect, --hosts to exp.machine; the chosen backend.
Result<BackendChoice> choose_backend(const RunFlags& f, Experiment& exp) {
  if (!f.accel.empty()) exp.machine.accel = *parse_accel_choice(f.accel);
  apply_timing_flag(f.timing, exp);
  if (!f.backend.empty()) exp.machine.backend = f.backend;
  if (!f.connect.empty()) exp.machine.connect = f.connect;
  BackendChoice choice;
  if (!f.hosts.empty()) {
    if (!f.backend.empty() && f.backend != "libvirt") {
      return make_error("--hosts is a pool of libvirt hosts: it cannot go with --backend " +
                        f.backend);
    }
    if (!f.connect.empty()) {
      return make_error("--connect and --hosts: list the host in --hosts instead");
    }
    auto hosts = load_hosts(f.hosts);
    if (!hosts.ok()) return hosts.error();
    choice.hosts = std::move(*hosts);
    exp.machine.backend = "libvirt";
    exp.machine.connect.clear();
  }
  if (!exp.machine.connect.empty() && exp.machine.backend != "libvirt") {
    return make_error("--connect " + exp.machine.connect +
                      ": a libvirt URI needs --backend libvirt");
  }
  choice.name = exp.machine.backend;
  choice.connect = exp.machine.connect;
  return choice;
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

// Guests at once: -j, else all the pool's slots, else as many as cores and memory allow; one
// for a backend that runs one run at a time (which the status is told).
int guests_at_once(const RunFlags& f, const MadeBackend& made, const Experiment& exp,
                   RunStatus& status) {
  const BackendEntry& entry = *made.entry;
  int parallel = !entry.needs.parallel ? 1
                 : f.guests > 0        ? f.guests
                 : made.pool           ? made.pool->slots()
                                       : default_guest_jobs(exp.machine.memory_mb);
  if (parallel > 1) status.note(fmt::format("{} guests at once (-j)", parallel));
  if (f.guests > 1 && !entry.needs.parallel) {
    status.note(
        fmt::format("backend {} runs one run at a time (-j {} ignored)", entry.name, f.guests));
  }
  return parallel;
}

KernelBuildOptions kernel_build_options(const RunFlags& f, const Experiment& exp,
                                        RunStatus* shown) {
  return {.project_root = f.common.root,
          .spec_dir = fs::path(exp.file).parent_path(),
          .cache = f.common.cache,
          .jobs = f.make_jobs,
          .log = [shown](const std::string& line) { shown->note(line); },
          .progress = [shown](const std::string& what, double s,
                              const std::string& last) { shown->build_progress(what, s, last); }};
}

void print_pool_usage(const PoolBackend& pool) {
  for (const PoolHostUse& u : pool.usage()) {
    fmt::print(stderr, "host {} ({} slot{}): {} run{}{}\n", u.uri, u.slots, u.slots == 1 ? "" : "s",
               u.runs, u.runs == 1 ? "" : "s", u.lost ? "; lost: " + u.lost_why : "");
  }
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

int run_experiment(const RunFlags& f) {
  auto exp = load(f.file, f.common, f.archs);
  if (!exp) return kExitBadInput;
  if (auto st = apply_repeat_until_ci(*exp, f.repeat_ci); !st.ok()) return fail(st.error());
  auto choice = choose_backend(f, *exp);
  if (!choice.ok()) return fail(choice.error());
  if (auto restored = recover_interrupted_runs(f.common.cache); !restored.ok()) {
    return fail(restored.error(), kExitFailed);
  } else if (!restored->empty()) {
    fmt::print(stderr, "{}\n", *restored);
  }
  auto runs = expand(*exp);
  auto shard = select_shard(f.shard, runs);
  if (!shard.ok()) return fail(shard.error());
  if (f.verbosity() != Verbosity::kQuiet) fmt::print(stderr, "{}", format_plan(*exp, runs));
  // A status block redrawn in place on a terminal, plain lines in CI logs.
  std::unique_ptr<RunStatus> status = make_status(stderr, f.verbosity());
  RealProcessRunner proc;
  std::vector<std::string> warnings;
  auto made = make_backend(*choice, proc, f.common.cache, warnings);
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  if (!made.ok()) return fail(made.error());
  auto index = ResultIndex::open(f.results);
  if (!index.ok()) {
    fmt::print(stderr, "warning: runs will not be indexed: {}\n", index.error().message);
  }
  RunnerOptions opt{.project_root = f.common.root,
                    .results_root = f.results,
                    .resume_latest = f.resume_latest,
                    .retry_failed = f.retry,
                    .index = index.ok() ? &*index : nullptr,
                    .shard = *shard,
                    .needs = made->entry->needs,
                    .jobs = guests_at_once(f, *made, *exp, *status),
                    .status = status.get()};
  if (!f.resume.empty()) opt.resume_dir = fs::path(f.resume);
  BuildingArtifactProvider artifacts(proc, kernel_build_options(f, *exp, status.get()));
  auto summary = ExperimentRunner(artifacts, *made->backend, opt).run(*exp, runs);
  status.reset();  // the block goes before the report is printed
  if (made->pool) print_pool_usage(*made->pool);
  return report_session(*exp, summary, f.common.cache);
}

std::function<int()> setup_run(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  add_run_flags(app, *flags);
  return [flags] { return run_experiment(*flags); };
}

std::function<int()> setup_cache(CLI::App& app) {
  auto common = std::make_shared<Common>();
  auto max_size = std::make_shared<std::string>();
  auto older = std::make_shared<std::string>();
  auto dry = std::make_shared<bool>(false);
  app.require_subcommand(1);
  CLI::App* list = app.add_subcommand(
      "list", "kernels, images, working trees and build folders with sizes and last use");
  CLI::App* gc = app.add_subcommand(
      "gc", "remove least recently used items (never what a running foliolab holds)");
  common->add(*list);
  common->add(*gc);
  gc->add_option("--max-size", *max_size, "shrink the cache to at most this (10G, 500M)");
  gc->add_option("--older-than", *older, "remove what was not used for this long (7d, 12h)");
  gc->add_flag("--dry-run", *dry, "only say what would be removed");
  return [=] {
    if (list->parsed()) {
      uint64_t total = 0;
      for (const auto& it : list_cache(common->cache)) {
        total += it.bytes;
        if (it.kind == CacheKind::kKernel) {
          fmt::print("kernel  {}  {:>9}  used {}  {} {} {}  {}\n", it.id, human_bytes(it.bytes),
                     fmt_time(it.last_used), it.kernel.empty() ? "?" : it.kernel, it.arch,
                     it.version, it.source);
        } else {
          fmt::print("{:<7} {}  {:>9}  used {}\n",
                     cache_kind_name(it.kind) == "working tree"
                         ? "tree"
                         : std::string(cache_kind_name(it.kind)),
                     it.id, human_bytes(it.bytes), fmt_time(it.last_used));
          for (const auto& part : it.parts) fmt::print("          O= {}\n", part);
        }
      }
      fmt::print("total {} in {}\n", human_bytes(total), common->cache);
      return kExitOk;
    }
    GcOptions opt{.dry_run = *dry};
    if (!max_size->empty()) {
      auto n = parse_size(*max_size);
      if (!n.ok()) return fail(make_error("--max-size: " + n.error().message));
      opt.max_bytes = *n;
    }
    if (!older->empty()) {
      auto n = parse_age(*older);
      if (!n.ok()) return fail(make_error("--older-than: " + n.error().message));
      opt.older_than_secs = *n;
    }
    if (!opt.max_bytes && !opt.older_than_secs) {
      auto configured = configured_cache_max_size();
      if (!configured.ok()) return fail(configured.error());
      if (!*configured) {
        return fail(make_error(
            "cache gc: give --max-size and/or --older-than (or set FOLIOLAB_CACHE_MAX_SIZE)"));
      }
      opt.max_bytes = **configured;
    }
    print_gc(collect_garbage(common->cache, opt), *dry);
    return kExitOk;
  };
}

std::function<int()> setup_report(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  auto html = std::make_shared<std::string>();
  app.add_option("session", *dir, "results session directory (results/<experiment>/<stamp>)")
      ->required();
  app.add_option("--format", *format, "text | markdown | csv | json")->capture_default_str();
  app.add_option("--html", *html, "also write a self-contained HTML report here");
  return [=] {
    Format fmt_out;
    if (!parse_format(*format, &fmt_out)) {
      return fail(make_error(fmt::format("--format {}: use text, markdown, csv or json", *format)));
    }
    auto store = ResultStore::open(*dir);
    if (!store.ok()) return fail(store.error());
    auto exp = load_experiment((store->dir() / "experiment.yaml").string());
    if (!exp.ok()) return fail(exp.error());
    auto records = store->load_all();
    if (!records.ok()) return fail(records.error());
    // Report what the session planned (a run with --arch planned only some archs).
    if (auto planned = store->planned_archs(); !planned.empty()) {
      std::vector<Arch> archs;
      for (Arch a : exp->archs) {
        if (std::find(planned.begin(), planned.end(), arch_info(a).name) != planned.end()) {
          archs.push_back(a);
        }
      }
      exp->archs = archs;
    }
    SessionReport report = build_session_report(*exp, *records);
    report.model.title = fmt::format("{} {}", exp->name, store->dir().filename().string());
    if (!html->empty()) {
      auto st = write_output(*html, [&](std::ostream& o) {
        write_html(report.model, session_extra_lines(report), o);
      });
      if (!st.ok()) return fail(st.error(), kExitFailed);
    }
    (void)write_output("-", [&](std::ostream& o) { render_session(report, fmt_out, o); });
    return report.expectations_failed == 0 && report.runs_failed == 0 ? kExitOk : kExitFailed;
  };
}

std::function<int()> setup_build_kernel(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto common = std::make_shared<Common>();
  auto archs = std::make_shared<std::vector<std::string>>();
  auto jobs = std::make_shared<int>(0);
  app.add_option("experiment", *file, "experiment YAML file whose kernels to build")->required();
  app.add_option("--arch", *archs, "only these architectures");
  app.add_option("--make-jobs", *jobs, "parallel make jobs (default: all CPUs)");
  common->add(app);
  return [=] {
    auto exp = load(*file, *common, *archs);
    if (!exp) return kExitBadInput;
    RealProcessRunner proc;
    // make's progress: one line redrawn in place on a terminal, a line a minute otherwise.
    const bool tty = ::isatty(STDERR_FILENO);
    auto clear = [tty] {
      if (tty) fmt::print(stderr, "\r\033[K");
    };
    auto progress = [tty](const std::string& what, double s, const std::string& last) {
      if (tty) {
        fmt::print(stderr, "\r\033[K  {}: {} {}", what, build_time_text(s), last);
      } else if (static_cast<int>(s) % 60 == 0 && s >= 60) {
        fmt::print(stderr, "  {}: still running after {}\n", what, build_time_text(s));
      }
    };
    KernelBuilder builder(proc, {.project_root = common->root,
                                 .spec_dir = fs::path(exp->file).parent_path(),
                                 .cache = common->cache,
                                 .jobs = *jobs,
                                 .log =
                                     [clear](const std::string& line) {
                                       clear();
                                       log_line(line);
                                     },
                                 .progress = progress});
    int rc = kExitOk;
    std::set<std::pair<size_t, Arch>> pairs;  // (kernel, arch) as the matrix uses them
    for (const auto& run : expand(*exp)) pairs.insert({run.kernel, run.arch});
    for (const auto& [ki, a] : pairs) {
      const KernelSpec& k = exp->kernels[ki];
      auto art = builder.build(k, a);
      clear();
      if (!art.ok()) {
        rc = std::max(rc, fail(art.error(), kExitFailed));
        continue;
      }
      fmt::print("{} {} {} {} {}\n", k.name, arch_info(a).name, art->build_id,
                 art->cache_hit ? "cached" : "built", art->image.string());
    }
    return rc;
  };
}

std::function<int()> setup_image(CLI::App& app) {
  auto common = std::make_shared<Common>();
  auto archs =
      std::make_shared<std::vector<std::string>>(std::vector<std::string>{"x86_64", "arm64"});
  app.add_option("--arch", *archs, "architectures (default: all)");
  common->add(app);
  return [=] {
    RealProcessRunner proc;
    ImageBuilder builder(proc, common->root, common->cache);
    int rc = kExitOk;
    for (const auto& name : *archs) {
      auto arch = parse_arch(name);
      if (!arch) {
        fmt::print(stderr, "error: unknown arch {}\n", name);
        return kExitBadInput;
      }
      auto art = builder.build(*arch);
      if (!art.ok()) {
        rc = std::max(rc, fail(art.error(), kExitFailed));
        continue;
      }
      fmt::print("{} {} {} {}\n", name, art->image_id, art->cache_hit ? "cached" : "built",
                 art->cpio.string());
    }
    return rc;
  };
}

}  // namespace

std::string version_string() { return std::string("foliolab ") + git_revision(); }

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"plan", "validate an experiment and print its expanded runs with their ids", setup_plan},
      {"run", "build, boot and measure every run of an experiment; print the comparison",
       setup_run},
      {"report", "print the comparison table and expectations of a results session", setup_report},
      {"compare", "compare two sessions or index selections: statistics and verdicts per metric",
       setup_compare},
      {"gate", "judge a candidate session against a baseline with the experiment's gate: rules",
       setup_gate},
      {"history", "one metric across sessions, from the index", setup_history},
      {"merge", "join result sessions of one plan (shards, hosts) into one new session",
       setup_merge},
      {"index", "manage <results>/index.sqlite (rebuild)", setup_index},
      {"baseline", "name sessions as baselines (tag)", setup_baseline},
      {"build-kernel", "build (or find in the cache) the kernels an experiment names",
       setup_build_kernel},
      {"image", "build (or find in the cache) the guest initramfs per arch", setup_image},
      {"cache", "list the cache (kernels, images, working trees) or prune it: cache list, cache gc",
       setup_cache},
      {"workloads", "list the workloads, or one workload's parameters and metrics",
       setup_workloads},
  };
  return kCommands;
}

}  // namespace foliolab::cli
