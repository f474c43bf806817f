#include "image/scratch_disk.h"

#include <fmt/format.h>

#include <system_error>

namespace foliolab {

Result<void> make_scratch_disk(ProcessRunner& runner, const std::filesystem::path& file,
                               uint64_t bytes) {
  std::error_code ec;
  std::filesystem::remove(file, ec);
  const std::filesystem::path log = file.string() + ".mkfs.log";
  ProcessResult mkfs =
      runner.run({.argv = {"mkfs.ext4", "-q", "-F", "-t", "ext4", "-L", "foliolab-scratch", "-m",
                           "0", "-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard",
                           file.string(), fmt::format("{}k", bytes >> 10)},
                  .log_path = log,
                  .timeout = std::chrono::seconds(120)});
  if (!mkfs.ok()) {
    return make_env_error(fmt::format("scratch disk {}: mkfs.ext4 of {} MiB failed ({}): {}",
                                      file.string(), bytes >> 20, mkfs.describe(),
                                      tail_lines(log, 10)));
  }
  std::filesystem::remove(log, ec);
  return {};
}

}  // namespace foliolab
