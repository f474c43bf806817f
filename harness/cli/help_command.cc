#include "cli/help_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

#include "cli/cli_util.h"
#include "util/text.h"

namespace foliolab::cli {

Result<std::string> help_text(const CLI::App& parent, const std::string& name) {
  // CLI11's help() would delegate to the selected subcommand (`help` itself): format directly.
  if (name.empty()) {
    return parent.get_formatter()->make_help(&parent, parent.get_name(),
                                             CLI::AppFormatMode::Normal);
  }
  std::vector<std::string> names;
  for (const CLI::App* sub : parent.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) {
      return sub->get_formatter()->make_help(sub, parent.get_name() + " " + name,
                                             CLI::AppFormatMode::Normal);
    }
    names.push_back(sub->get_name());
  }
  return make_error("foliolab help: unknown subcommand '" + name + "'" + did_you_mean(name, names) +
                    " (subcommands: " + join(names, ", ") + ")");
}

std::function<int()> setup_help(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  app.add_option("subcommand", *name, "the subcommand whose help to print (none: foliolab's)");
  const CLI::App* parent = app.get_parent();
  return [=] {
    auto help = help_text(*parent, *name);
    if (!help.ok()) return fail(help.error());
    fmt::print("{}", *help);
    return kExitOk;
  };
}

}  // namespace foliolab::cli
