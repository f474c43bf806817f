// foliolab command line. One table drives the subcommands (name, help, setup); each handler
// turns flags into option structs and calls into the library. Exit codes: 0 success, 1 a run
// or expectation failed, 2 bad input (YAML, flags, project files), 3 an unusable environment or
// an internal error (cli/cli_util.h).
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/docs.h"
#include "image/foreign_exec.h"
#include "util/process.h"

namespace {

void on_signal(int) { foliolab::request_cancel(); }

}  // namespace

int main(int argc, char** argv) {
  // An internal helper, not a subcommand: the image builder runs another arch's programs through
  // it (image/foreign_exec.h).
  if (argc > 1 && std::string_view(argv[1]) == foliolab::kForeignExecCommand) {
    return foliolab::foreign_exec_main(std::vector<std::string>(argv + 2, argv + argc));
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  auto cl = foliolab::cli::make_command_line();
  CLI::App& app = *cl.app;
  if (auto rc = foliolab::cli::print_docs(app, argc, argv)) return *rc;
  const auto& subs = cl.subs;
  const auto& handlers = cl.handlers;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  // The boundary: a library exception that got this far (a filesystem error, say) is not the
  // user's input: an error line naming the command, and exit 3.
  for (size_t i = 0; i < subs.size(); ++i) {
    if (!subs[i]->parsed()) continue;
    try {
      return handlers[i]();
    } catch (const std::exception& e) {
      fmt::print(stderr, "error: foliolab {}: {}\n", subs[i]->get_name(), e.what());
      return foliolab::cli::kExitEnvironment;
    }
  }
  return foliolab::cli::kExitBadInput;
}
