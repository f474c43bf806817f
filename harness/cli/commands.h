// The subcommand table.
#pragma once

#include <functional>
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
std::string version_string();

}  // namespace foliolab::cli
