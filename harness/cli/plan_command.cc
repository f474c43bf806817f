#include "cli/plan_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "backend/backend_table.h"
#include "catalog/named_files.h"
#include "catalog/plan_limits.h"
#include "cli/cli_util.h"
#include "cli/run_setup.h"
#include "cli/timing_flag.h"
#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/image_recipe.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "model/project.h"
#include "model/shard.h"
#include "report/plan_cost.h"
#include "results/index.h"
#include "results/store.h"
#include "runner/building_artifact_provider.h"
#include "runner/plan_cost.h"
#include "util/fs_ops.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

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

}  // namespace

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
  auto hosts = std::make_shared<std::string>();
  app.add_option("--hosts", *hosts,
                 "as for run: a pool (lab machines: their kernel fragments join every kernel)");
  common->add(app);
  return [=] {
    auto exp = load(*file, *common, *archs);
    if (!exp) return kExitBadInput;
    if (auto st = apply_repeat_until_ci(*exp, *repeat_ci); !st.ok()) return fail(st.error());
    apply_timing_flag(*timing, *exp);
    if (auto st = settle_pool_kernels(*common, *hosts, *exp); !st.ok()) return fail(st.error());
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

}  // namespace foliolab::cli
