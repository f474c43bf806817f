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
// The environment cannot be used (a cache directory that cannot be created, a missing tool, an
// I/O error on a file the user did not name) or foliolab failed (a bug).
constexpr int kExitEnvironment = 3;

// The exit status for `e`: its kind decides (input 2, environment or internal 3).
int exit_code_for(const Error& e);

// Prints "error: <message>" to stderr and returns `code`, or for an error of the environment or
// of foliolab itself, kExitEnvironment whatever `code` says.
int fail(const Error& e, int code = kExitBadInput);

// Writes through `write` to `path` atomically ("-" or "": stdout).
Status write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

// The project root (kernel-config/, patches/, ...): FOLIOLAB_ROOT or the source tree.
std::filesystem::path project_root();
std::filesystem::path default_results_root();
// This foliolab binary (/proc/self/exe), for the helpers it runs as itself.
std::filesystem::path self_exe_path();

}  // namespace foliolab::cli
