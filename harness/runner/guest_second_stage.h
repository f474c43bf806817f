// The second stage of an image built without emulation on the host (image/second_stage.h), in a
// real guest: the quickstart's kernel (experiments/quickstart.yaml's first kernel, the one every
// published experiment boots, so usually cached) and the agent's initramfs for the arch, booted
// by the backend it is handed (QEMU) under TCG with the disk attached writable. The agent enters
// the disk as for any rootfs run and runs the commands as `setup` lines of a job without a workload
// (protocol/job.h render_setup_job); a command that fails ends the run with its output.
#pragma once

#include <filesystem>

#include "backend/backend.h"
#include "image/second_stage.h"
#include "runner/artifact_provider.h"

namespace foliolab {

struct GuestSecondStageOptions {
  std::filesystem::path data_root;  // holds experiments/quickstart.yaml
  int cpus = 2;
  uint64_t memory_mb = 1024;
  std::chrono::seconds timeout{3600};
};

class GuestSecondStage : public SecondStage {
 public:
  // `backend` boots the guests (under TCG: the stage runs before any accelerator is probed).
  GuestSecondStage(ArtifactProvider& artifacts, Backend& backend, GuestSecondStageOptions options)
      : artifacts_(artifacts), backend_(backend), opt_(std::move(options)) {}
  Result<void> run(Arch arch, const std::filesystem::path& disk,
                   const std::vector<std::vector<std::string>>& commands,
                   const std::filesystem::path& dir) override;

 private:
  ArtifactProvider& artifacts_;
  Backend& backend_;
  GuestSecondStageOptions opt_;
};

}  // namespace foliolab
