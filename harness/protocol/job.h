// Renders a Run into the guest's job file (docs/guest-protocol.md, "Job file").
#pragma once

#include <string>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

inline constexpr const char* kJobMagic = "foliolab-job 1";

// Fails if a value would break the line format (tab, newline, NUL).
Result<std::string> render_job(const Experiment& exp, const Run& run);

}  // namespace foliolab
