// `foliolab image`: build (or find in the cache) the guest initramfs, or a root filesystem, per
// arch.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_image(CLI::App& app);

}  // namespace foliolab::cli
