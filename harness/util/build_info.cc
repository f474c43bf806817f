#include "util/build_info.h"

namespace foliolab {

const char* source_dir() { return FOLIOLAB_SOURCE_DIR; }

}  // namespace foliolab
