// std::filesystem operations that do not throw: each failure is an environment error (exit 3)
// naming what was being done and the path ("cannot create directory /proc/x/kernels: ...").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace foliolab {

Result<void> make_dirs(const std::filesystem::path& dir);
// Copies a regular file over whatever `to` is.
Result<void> copy_file_over(const std::filesystem::path& from, const std::filesystem::path& to);
Result<void> rename_path(const std::filesystem::path& from, const std::filesystem::path& to);
// Removes `p` and everything under it; absent is fine.
Result<void> remove_tree(const std::filesystem::path& p);
// Whether `p` exists; a path that cannot be examined (no permission on a parent) does not.
bool path_exists(const std::filesystem::path& p);
bool is_dir(const std::filesystem::path& p);
// The names directly inside `dir`, sorted.
Result<std::vector<std::filesystem::path>> list_dir(const std::filesystem::path& dir);

}  // namespace foliolab
