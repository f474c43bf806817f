// `foliolab plan EXPERIMENT`: validate an experiment and print its runs, files, time and builds.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_plan(CLI::App& app);

}  // namespace foliolab::cli
