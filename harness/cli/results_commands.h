// Subcommands over stored results: compare, history, index, baseline (gate: gate_command.h).
#pragma once

#include <filesystem>
#include <functional>

#include "analysis/pairing.h"
#include "results/index.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_compare(CLI::App& app);
std::function<int()> setup_history(CLI::App& app);
std::function<int()> setup_index(CLI::App& app);
std::function<int()> setup_baseline(CLI::App& app);

}  // namespace foliolab::cli
