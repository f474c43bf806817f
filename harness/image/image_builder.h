// The base initramfs per arch: the static guest agent as /init and every workloads/*.c as
// /workloads/<name>, compiled static for the guest arch and cached by the hash of the sources,
// the compiler version and the flags.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "image/cpio.h"
#include "model/arch.h"
#include "util/file_lock.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct ImageArtifact {
  std::string image_id;  // 16 hex digits
  std::filesystem::path cpio;
  std::vector<std::string> workloads;
  bool cache_hit = false;
  // A shared lock on <cache>/images/<id>.use.lock while any copy lives: `cache gc` leaves the
  // image of a running session alone.
  std::shared_ptr<FileLock> hold;
};

// Whether an arch's base image is in the cache (ImageBuilder::lookup).
struct ImageLookup {
  std::string image_id;
  bool cached = false;
};

class ImageBuilder {
 public:
  ImageBuilder(ProcessRunner& runner, std::filesystem::path data_root, std::filesystem::path cache);
  Result<ImageArtifact> build(Arch arch);
  // What build() would find, without building or touching the cache.
  Result<ImageLookup> lookup(Arch arch);

 private:
  struct Key {
    std::vector<std::filesystem::path> agent_sources, workload_sources;
    std::string compiler;  // the guest compiler's version line
    std::string image_id;
    std::filesystem::path dir;
  };
  Result<Key> key(Arch arch);
  Result<std::string> compile(Arch arch, const std::vector<std::filesystem::path>& sources,
                              const std::filesystem::path& out, const std::filesystem::path& log);
  ProcessRunner& runner_;
  std::filesystem::path root_;
  std::filesystem::path cache_;
};

// The job archive's entries: /job, /job/job.txt and `extra` (a custom program under job/).
std::vector<CpioEntry> job_entries(const std::string& job_text,
                                   const std::vector<CpioEntry>& extra = {});

// The run's initrd: base archive followed by a job archive holding /job/job.txt.
// `extra` entries (e.g. a custom workload binary under job/) go into the job archive too.
Result<void> write_run_initrd(const std::filesystem::path& base_cpio, const std::string& job_text,
                              const std::filesystem::path& out,
                              const std::vector<CpioEntry>& extra = {});

}  // namespace foliolab
