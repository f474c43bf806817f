// The second stage of an image built without emulation on the host (image/second_stage.h), in a
// real guest: the quickstart's kernel (experiments/quickstart.yaml's first kernel, the one every
// published experiment boots, so usually cached) and the agent's initramfs for the arch, booted
// by QEMU under TCG with the disk attached writable. The agent enters the disk as for any
// rootfs run and runs the commands as `setup` lines of a job without a workload
// (protocol/job.h render_setup_job); a command that fails ends the run with its output.
#pragma once

#include <filesystem>

#include "image/second_stage.h"
#include "util/process.h"

namespace foliolab {

class ArtifactProvider;

struct GuestSecondStageOptions {
  std::filesystem::path project_root;  // holds experiments/quickstart.yaml
  std::filesystem::path cache;
  int cpus = 2;
  uint64_t memory_mb = 1024;
  std::chrono::seconds timeout{3600};
};

class GuestSecondStage : public SecondStage {
 public:
  GuestSecondStage(ArtifactProvider& artifacts, ProcessRunner& runner,
                   GuestSecondStageOptions options)
      : artifacts_(artifacts), runner_(runner), opt_(std::move(options)) {}
  Status run(Arch arch, const std::filesystem::path& disk,
             const std::vector<std::vector<std::string>>& commands,
             const std::filesystem::path& dir) override;

 private:
  ArtifactProvider& artifacts_;
  ProcessRunner& runner_;
  GuestSecondStageOptions opt_;
};

}  // namespace foliolab
