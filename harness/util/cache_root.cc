#include "util/cache_root.h"

#include <cstdlib>

namespace foliolab {
namespace fs = std::filesystem;

fs::path cache_root() {
  if (const char* c = std::getenv("FOLIOLAB_CACHE"); c && *c) return fs::path(c);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "foliolab";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "foliolab";
  return fs::temp_directory_path() / "foliolab-cache";
}

}  // namespace foliolab
