// A run's scratch disk (`fragment: {method: churn}`, model/machine_state.h): a sparse file with an
// empty ext4 file system, made in the run's folder for that run alone and removed after its
// boot. The guest writes the churn's files into it (protocol/job.h kScratchDiskSerial).
#pragma once

#include <cstdint>
#include <filesystem>

#include "util/process.h"
#include "util/result.h"

namespace foliolab {

// `file` made anew: `bytes` long, sparse, ext4 without reserved blocks and with its inode tables
// and journal initialised lazily (the guest's first writes do it; mkfs stays under a second).
Result<void> make_scratch_disk(ProcessRunner& runner, const std::filesystem::path& file,
                               uint64_t bytes);

}  // namespace foliolab
