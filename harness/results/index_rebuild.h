// `foliolab index rebuild`: the index recreated from the files under the results root (index.h
// is a cache of them). Above the index and the two files that write their tables into it
// (bisect_index.h, finding_index.h): the index does not call them.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "util/result.h"

namespace foliolab {

// Recreates the index from every run file, bisection log (results/bisect_index.h) and gate.json
// (results/finding_index.h) under the root in one transaction; returns the number of runs
// indexed. Files that do not decode are reported through `warn`. A damaged index file is removed
// and created anew.
Result<int> rebuild_index(const std::filesystem::path& results_root,
                          const std::function<void(const std::string&)>& warn);

}  // namespace foliolab
