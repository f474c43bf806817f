// `run --timing wall|icount` overrides machine.timing; `plan` refuses instruction-time where it
// cannot run (accel kvm, a backend without -icount) before anything is built.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/experiment.h"

namespace foliolab::cli {

void add_timing_flag(CLI::App& app, std::string& timing);
// --timing given: the mode, with no file location (errors then name the flag).
void apply_timing_flag(const std::string& timing, Experiment& exp);
// machine.timing against exp.machine's accel and backend: the exit status when refused (the
// error printed), nullopt when the runs may go on.
std::optional<int> timing_refused(const Experiment& exp, const std::vector<Run>& runs);

}  // namespace foliolab::cli
