#include "cli/build_kernel_command.h"

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
#include "util/fs_ops.h"
#include "util/text.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

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

}  // namespace foliolab::cli
