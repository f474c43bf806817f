// `foliolab build-kernel EXPERIMENT`: build (or find in the cache) the kernels it names.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_build_kernel(CLI::App& app);

}  // namespace foliolab::cli
