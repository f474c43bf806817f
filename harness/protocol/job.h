// Renders a Run into the guest's job file (docs/guest-protocol.md, "Job file").
#pragma once

#include <string>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

inline constexpr const char* kJobMagic = "foliolab-job 1";
// The serial of a run's swap disk (machine.swap type disk): the agent finds its device by it.
inline constexpr const char* kSwapDiskSerial = "foliolab-swap";
// The serial of a run's scratch disk (a `fragment: {method: churn}` step): an ext4 file system
// made for the run alone, which the agent mounts for the churn's files.
inline constexpr const char* kScratchDiskSerial = "foliolab-scratch";

// Fails if a value would break the line format (tab, newline, NUL).
Result<std::string> render_job(const Experiment& exp, const Run& run);

// A job with no workload: enter the root filesystem on /dev/vda, run `commands` (argv lists) in
// order as setup commands, power off. The second stage of an image build (image/second_stage.h).
Result<std::string> render_setup_job(const std::string& run_id,
                                     const std::vector<std::vector<std::string>>& commands);

}  // namespace foliolab
