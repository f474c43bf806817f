// Test helper: the checkout the tests were built from (experiments/, patches/, kernel-config/).
// One definition for every test file, so a unity build of the tests has no two.
#pragma once

#include <filesystem>

#include "util/build_info.h"

namespace foliolab {

inline const std::filesystem::path kSourceRoot{source_dir()};

}  // namespace foliolab
