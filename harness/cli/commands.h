// The subcommand table.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace foliolab::cli {

struct Command {
  std::string name;
  std::string help;
  // Adds the subcommand's flags to `app`; returns the handler to run once parsed.
  std::function<std::function<int()>(CLI::App& app)> setup;
};

const std::vector<Command>& commands();
// "foliolab 0.1.0 (revision <git describe>, <build type>)".
std::string version_string();

// The whole command line: the app with --version and a subcommand per table entry, and each
// subcommand's handler (in table order).
struct CommandLine {
  std::unique_ptr<CLI::App> app;
  std::vector<CLI::App*> subs;
  std::vector<std::function<int()>> handlers;
};
CommandLine make_command_line();

}  // namespace foliolab::cli
