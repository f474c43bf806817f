// Helpers shared by the subcommand handlers: exit codes, error printing, output files.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

#include "util/result.h"

namespace foliolab::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

// Prints "error: <message>" to stderr and returns `code`.
int fail(const Error& e, int code = kExitBadInput);

// Writes through `write` to `path` atomically ("-" or "": stdout).
Status write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

// The project root (kernel-config/, patches/, ...): FOLIOLAB_ROOT or the source tree.
std::filesystem::path project_root();
std::filesystem::path default_results_root();

}  // namespace foliolab::cli
