// The lab server's subcommands: serve, token add, push (server/).
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_serve(CLI::App& app);
std::function<int()> setup_token(CLI::App& app);
std::function<int()> setup_push(CLI::App& app);

}  // namespace foliolab::cli
