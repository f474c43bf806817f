#include "util/build_info.h"

namespace foliolab {

const char* source_dir() { return FOLIOLAB_SOURCE_DIR; }

const char* git_revision() { return FOLIOLAB_GIT_REV; }

const char* version() { return FOLIOLAB_VERSION; }

const char* build_type() { return FOLIOLAB_BUILD_TYPE; }

}  // namespace foliolab
