// `foliolab merge ROOT… --into ROOT` (results/merge.h).
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_merge(CLI::App& app);

}  // namespace foliolab::cli
