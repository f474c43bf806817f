// `foliolab cache list|gc`: the cache (kernels, images, working trees), listed or pruned.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_cache(CLI::App& app);

}  // namespace foliolab::cli
