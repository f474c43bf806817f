#include "cli/workload_commands.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "catalog/workload_catalog.h"
#include "cli/cli_util.h"
#include "util/text.h"

namespace foliolab::cli {

std::function<int()> setup_workloads(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  app.add_option("workload", *name, "show one workload's parameters and metrics");
  return [=] {
    if (name->empty()) {
      fmt::print("{}", format_workload_list());
      return kExitOk;
    }
    const WorkloadInfo* w = find_workload(*name);
    if (!w) {
      const auto names = workload_names();
      return fail(make_error("unknown workload '" + *name + "'" + did_you_mean(*name, names)));
    }
    fmt::print("{}", format_workload_details(*w));
    return kExitOk;
  };
}

}  // namespace foliolab::cli
