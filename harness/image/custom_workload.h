// The `custom` workload: a user's own program in the guest. One of `source: file.c` or
// `source: [a.c, b.c]` (compiled static for the guest arch), `build: {command, dir, output}` (a
// build run on the host) — both cached as image/custom_workload_build.h says — or
// `program: path` (a static binary; "{arch}" in the path is replaced by x86_64 / arm64),
// shipped in the run's job archive as /job/bin/custom.
// Arguments come from `args:` split on blanks (no shell: quotes are not interpreted). Its
// metrics are the JSON lines it prints on stdout; it should end with FOLIOLAB-WORKLOAD-OK.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "image/cpio.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

inline constexpr const char* kCustomWorkload = "custom";
inline constexpr const char* kCustomGuestPath = "/job/bin/custom";

bool is_custom(const WorkloadSpec& w);

// Entries for the job archive (job/bin/custom); empty for built-in workloads.
Result<std::vector<CpioEntry>> custom_workload_files(ProcessRunner& runner, const WorkloadSpec& w,
                                                     Arch arch,
                                                     const std::filesystem::path& spec_dir,
                                                     const std::filesystem::path& cache);

// ELF machine check: a binary for the wrong arch is an error naming both; so is a dynamically
// linked one (check_elf_static).
Result<void> check_elf_arch(const std::string& bytes, Arch arch, const std::string& what);
Result<void> check_elf_static(const std::string& bytes, const std::string& what);

// `args:` split on blanks.
std::vector<std::string> split_args(const std::string& args);

}  // namespace foliolab
