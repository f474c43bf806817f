// File helpers: every stored file is written atomically (temp file, fsync, rename, fsync dir).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.h"

namespace foliolab {

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data);
Result<std::string> read_file(const std::filesystem::path& path);

// "what: strerror(errno)".
std::string fmt_errno(const std::string& what);

}  // namespace foliolab
