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
#include "catalog/named_files.h"
#include "catalog/validate.h"
#include "cli/bisect_command.h"
#include "cli/cli_util.h"
#include "cli/doctor_command.h"
#include "cli/gate_command.h"
#include "cli/init_command.h"
#include "cli/merge_command.h"
#include "cli/progress.h"
#include "cli/results_commands.h"
#include "cli/run_setup.h"
#include "cli/timing_flag.h"
#include "cli/workload_commands.h"
#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "kernel/cache_store.h"
#include "model/image_recipe.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "model/project.h"
#include "model/shard.h"
#include "report/html.h"
#include "report/plan_cost.h"
#include "report/render.h"
#include "report/session_layout.h"
#include "results/index.h"
#include "results/store.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "runner/plan_cost.h"
#include "runner/scheduler.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/text.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

void log_line(const std::string& s) { fmt::print(stderr, "{}\n", s); }

// What the plan will build and how long that should take (nothing is built).
int print_plan_cost(const Experiment& exp, const std::vector<Run>& runs, const Common& common,
                    const std::string& results_root) {
  RealProcessRunner proc;
  KernelBuilder kernels(proc, {.data_root = common.root,
                               .project = exp.project,
                               .spec_dir = exp.dir,
                               .cache = common.cache});
  ImageBuilder images(proc, common.root, common.cache);
  const BackendEntry* backend = find_backend(exp.machine.backend);
  // Only an index that is there: plan creates nothing.
  auto index = path_exists(fs::path(results_root) / "index.sqlite")
                   ? ResultIndex::open(results_root)
                   : Result<ResultIndex>(make_error("no index"));
  RootfsBuilder disks(proc, {.cache = common.cache, .self_exe = self_exe_path()});
  std::optional<ImageRecipe> recipe;
  if (!exp.machine.image.empty()) {
    const auto file = find_image_recipe(SearchPath(exp.project, common.root), exp.machine.image);
    if (!file) return fail(make_error("no image recipe '" + exp.machine.image + "'"));
    auto r = load_image_recipe(file->path.string());
    if (!r.ok()) return fail(r.error());
    recipe = *r;
  }
  auto cost = plan_cost(exp, runs, kernels, images, !backend || backend->needs.kernel,
                        past_kernel_builds(common.cache), index.ok() ? &*index : nullptr,
                        {.builder = &disks, .recipe = recipe ? &*recipe : nullptr});
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
  auto timing = std::make_shared<std::string>();
  auto repeat_ci = std::make_shared<std::string>();
  add_timing_flag(app, *timing);
  app.add_option("--repeat-until-ci", *repeat_ci, "as for run: adaptive reps (the worst case)");
  common->add(app);
  return [=] {
    auto exp = load(*file, *common, *archs);
    if (!exp) return kExitBadInput;
    if (auto st = apply_repeat_until_ci(*exp, *repeat_ci); !st.ok()) return fail(st.error());
    apply_timing_flag(*timing, *exp);
    auto runs = expand(*exp);
    if (auto refused = timing_refused(*exp, runs)) return *refused;
    fmt::print("plan {}\n", plan_hash(runs));
    if (!shard_text->empty()) {
      auto shard = parse_shard(*shard_text);
      if (!shard.ok()) return fail(shard.error());
      runs = shard_runs(runs, *shard);
      fmt::print("shard {}: {} run(s)\n", shard->text(), runs.size());
    }
    fmt::print("{}{}{}", format_plan(*exp, runs),
               format_named_files(named_files(*exp, common->root)),
               format_time_estimate(*exp, runs));
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

int run_experiment(const RunFlags& f) {
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
    KernelBuilder builder(proc, {.data_root = common->root,
                                 .project = exp->project,
                                 .spec_dir = exp->dir,
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

// `image --recipe NAME`: the recipe's ext4 disk per arch, built or found in the cache.
int build_rootfs_images(ProcessRunner& proc, const Common& common, const std::string& name,
                        const std::vector<std::string>& archs, ForeignPath foreign) {
  const fs::path root(common.root);
  // A recipe of the project the working directory is in comes before foliolab's.
  const SearchPath names(project_of(fs::current_path()), root);
  const auto file = find_image_recipe(names, name);
  if (!file) {
    fmt::print(stderr, "error: no image recipe '{}' (no {}){}\n", name,
               names.searched(image_recipe_rel(name)),
               did_you_mean(name, image_recipe_names(names)));
    return kExitBadInput;
  }
  auto recipe = load_image_recipe(file->path.string());
  if (!recipe.ok()) return fail(recipe.error());
  // Through the provider: a second stage boots the quickstart's kernel, built like any other.
  BuildingArtifactProvider artifacts(proc, {.data_root = root, .cache = common.cache}, foreign);
  RootfsBuilder& builder = artifacts.rootfs_builder();
  int rc = kExitOk;
  for (const auto& arch_name : archs) {
    auto arch = parse_arch(arch_name);
    if (!arch) {
      fmt::print(stderr, "error: unknown arch {}\n", arch_name);
      return kExitBadInput;
    }
    if (auto seen = builder.lookup(*recipe, *arch); seen.ok() && !seen->cached) {
      log_line(fmt::format("building image {} for {} (mmdebstrap from Debian's archive; {})", name,
                           arch_name, way_name(builder.way(*arch))));
    }
    auto art = builder.build(*recipe, *arch);
    if (!art.ok()) {  // a package Debian lacks is bad input (2); the rest is the environment (3)
      rc = std::max(rc, fail(art.error(), exit_code_for(art.error())));
      continue;
    }
    fmt::print("{} {} {} {} {} ({} packages{})\n", name, arch_name, art->image_id,
               art->cache_hit ? "cached" : "built", art->disk.string(), art->packages,
               art->cache_hit ? "" : fmt::format(", {:.0f} s", art->build_seconds));
  }
  return rc;
}

std::function<int()> setup_image(CLI::App& app) {
  auto common = std::make_shared<Common>();
  auto archs =
      std::make_shared<std::vector<std::string>>(std::vector<std::string>{"x86_64", "arm64"});
  app.add_option("--arch", *archs, "architectures (default: all)");
  auto recipe = std::make_shared<std::string>();
  app.add_option("--recipe", *recipe,
                 "a Debian root filesystem recipe, images/<NAME>.yaml (default: the initramfs)");
  auto foreign = std::make_shared<std::string>("auto");
  app.add_option("--foreign", *foreign,
                 "another arch's Debian image: binfmt (qemu-user in a private binfmt_misc, Linux "
                 "6.7+), guest (unpacked here, second stage in a guest of that arch) or auto")
      ->check(CLI::IsMember({"auto", "binfmt", "guest"}));
  common->add(app);
  return [=] {
    RealProcessRunner proc;
    if (!recipe->empty()) {
      return build_rootfs_images(proc, *common, *recipe, *archs, *parse_foreign_path(*foreign));
    }
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

std::string version_string() {
  return fmt::format("foliolab {} (revision {}, {})", version(), git_revision(), build_type());
}

CommandLine make_command_line() {
  CommandLine cl{.app = std::make_unique<CLI::App>(
                     "build patched kernels, boot them, measure THP/mTHP page-fault effects")};
  cl.app->require_subcommand(1);
  cl.app->set_version_flag("--version", version_string());
  for (const auto& cmd : commands()) {
    CLI::App* sub = cl.app->add_subcommand(cmd.name, cmd.help);
    cl.handlers.push_back(cmd.setup(*sub));
    cl.subs.push_back(sub);
  }
  return cl;
}

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
      {"bisect",
       "find the patch of a series, the commit of a git range or the knob set where a metric "
       "changes; confirm it",
       setup_bisect},
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
      {"init", "make a project folder: foliolab.yaml, an experiment to start from, patches/",
       setup_init},
      {"doctor",
       "check this machine: every program foliolab runs, its Debian package, what needs it",
       setup_doctor},
  };
  return kCommands;
}

}  // namespace foliolab::cli
