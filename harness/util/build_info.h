// Where this foliolab was built from, and its revision. Compiled into one file each, so that a
// commit or another checkout of the tree recompiles those and nothing else (and ccache hits
// across checkouts).
#pragma once

namespace foliolab {

// The source tree foliolab was built from (the default data folder).
const char* source_dir();
// `git describe --always --dirty` of that tree when it was configured, or "unknown".
const char* git_revision();
// The project's version (CMakeLists.txt project(VERSION)) and CMAKE_BUILD_TYPE.
const char* version();
const char* build_type();

}  // namespace foliolab
