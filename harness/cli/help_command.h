// `foliolab help [SUBCOMMAND]`: a subcommand's help, the text `foliolab SUBCOMMAND --help`
// prints (foliolab's own without one).
#pragma once

#include <functional>
#include <string>

#include "util/result.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

// The help `parent SUBCOMMAND --help` prints, or parent's own for an empty `name`; an error
// naming the subcommands for an unknown one.
Result<std::string> help_text(const CLI::App& parent, const std::string& name);

std::function<int()> setup_help(CLI::App& app);

}  // namespace foliolab::cli
