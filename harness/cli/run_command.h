// `foliolab run EXPERIMENT`: build, boot and measure every run; print the comparison.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_run(CLI::App& app);

}  // namespace foliolab::cli
