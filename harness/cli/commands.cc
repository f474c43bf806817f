#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/bisect_command.h"
#include "cli/build_kernel_command.h"
#include "cli/cache_command.h"
#include "cli/doctor_command.h"
#include "cli/export_command.h"
#include "cli/gate_command.h"
#include "cli/help_command.h"
#include "cli/image_command.h"
#include "cli/init_command.h"
#include "cli/lab_commands.h"
#include "cli/merge_command.h"
#include "cli/plan_command.h"
#include "cli/report_command.h"
#include "cli/results_commands.h"
#include "cli/run_command.h"
#include "cli/schema_command.h"
#include "cli/try_command.h"
#include "cli/workload_commands.h"
#include "util/build_info.h"

namespace foliolab::cli {

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
      {"export", "write a results session as KernelCI KCIDB JSON (--kcidb)", setup_export},
      {"compare", "compare two sessions or index selections: statistics and verdicts per metric",
       setup_compare},
      {"gate", "judge a candidate session against a baseline with the experiment's gate: rules",
       setup_gate},
      {"history", "one metric across sessions, from the index", setup_history},
      {"bisect",
       "find the patch of a series, the commit of a git range or the knob set where a metric "
       "changes; confirm it",
       setup_bisect},
      {"try",
       "try a fix against a bisection's regression report: the culprit with the fix, in columns",
       setup_try},
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
      {"serve", "a lab's results server: JSON API, dashboard, kernels by build id (--db URL)",
       setup_serve},
      {"token", "make a lab server token: token add NAME --scope push|read --db URL", setup_token},
      {"push", "send result sessions to a lab server (foliolab serve)", setup_push},
      {"doctor",
       "check this machine: every program foliolab runs, its Debian package, what needs it",
       setup_doctor},
      {"schema",
       "print the JSON Schema of experiments, image recipes, known-issues files or "
       "foliolab.yaml (editors)",
       setup_schema},
      {"help", "print a subcommand's help (the same as foliolab SUBCOMMAND --help)", setup_help},
  };
  return kCommands;
}

}  // namespace foliolab::cli
