// Naming a results session: a directory, `latest` (the newest session of an experiment) or
// `tag:NAME` (set by `foliolab baseline tag`). Tags live in <root>/tags.json (schema 1,
// written atomically under a lock), beside the sessions they name.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "util/result.h"

namespace foliolab {

inline constexpr int kTagsSchema = 1;

// `experiment` is needed for `latest` only.
Result<std::filesystem::path> resolve_session(std::string_view ref,
                                              const std::filesystem::path& results_root,
                                              const std::string& experiment);

Result<void> tag_session(const std::filesystem::path& results_root,
                         const std::filesystem::path& session_dir, const std::string& name);
// name -> session path relative to the root.
Result<std::map<std::string, std::string>> read_tags(const std::filesystem::path& results_root);

}  // namespace foliolab
