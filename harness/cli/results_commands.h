// Subcommands over stored results: compare, gate, history, index, baseline.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_compare(CLI::App& app);
std::function<int()> setup_gate(CLI::App& app);
std::function<int()> setup_history(CLI::App& app);
std::function<int()> setup_index(CLI::App& app);
std::function<int()> setup_baseline(CLI::App& app);

}  // namespace foliolab::cli
