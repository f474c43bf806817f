// The foliolab binary the end-to-end tests and benches drive (built beside them), and a way to
// start it in the background (to kill it mid-way).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "util/process.h"

namespace foliolab {

const char* cli_binary();

// Runs the real CLI with `args` in `cwd` (as a user would: `cd cwd && foliolab args...`),
// stdout and stderr appended to `log` and captured; killed after 90 minutes.
ProcessResult run_cli(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                      const std::filesystem::path& log);

// Starts the real CLI with `args`, stdout and stderr appended to `log`; returns its pid.
pid_t spawn_cli(const std::vector<std::string>& args, const std::filesystem::path& log);
// Its exit status (128 + the signal when killed); -1 when it cannot be waited for.
int wait_exit(pid_t pid);

}  // namespace foliolab
