// Where foliolab caches kernels, images and work trees.
#pragma once

#include <filesystem>

namespace foliolab {

// Cache root: $FOLIOLAB_CACHE, else $XDG_CACHE_HOME/foliolab, else ~/.cache/foliolab.
std::filesystem::path cache_root();

}  // namespace foliolab
