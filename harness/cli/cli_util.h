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
// One progress line to stderr.
void log_line(const std::string& s);

// Writes through `write` to `path` atomically ("-" or "": stdout).
Result<void> write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

// Where foliolab's data is (kernel-config/, patches/, images/, workloads/, experiments/), and
// how it was found.
enum class DataRootKind { kEnv, kInstalled, kSourceTree };
struct DataRoot {
  std::filesystem::path path;
  DataRootKind kind = DataRootKind::kSourceTree;
};
// `env` (FOLIOLAB_ROOT, made absolute) when set; else <folder of exe>/../share/foliolab when it
// is a folder (an installed foliolab: bin/foliolab beside share/foliolab); else `source`, the
// tree the binary was built from (run from its build directory).
DataRoot find_data_root(const char* env, const std::filesystem::path& exe,
                        const std::filesystem::path& source);
// find_data_root of this process: FOLIOLAB_ROOT, /proc/self/exe and the compiled-in source tree.
DataRoot data_root();
std::filesystem::path data_dir();
// results/ of the project (foliolab.yaml) the working directory is in; else <data root>/results,
// or for an installed foliolab (whose data folder is not the user's) results/ in the working
// directory.
std::filesystem::path default_results_root();
// This foliolab binary (/proc/self/exe), for the helpers it runs as itself.
std::filesystem::path self_exe_path();

}  // namespace foliolab::cli
