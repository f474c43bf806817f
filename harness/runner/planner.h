// Decides, before any guest boots, what every run of a session needs: the accelerator of each
// arch (settled once: an explicit `kvm` that cannot work stops here, `auto` says once why it
// chose TCG), the kernel of each (kernel, arch), the base image of each arch and the job files
// of each (workload, kernel, arch), each built once. A run kept from an earlier session is
// counted; a run whose kernel, image or job files failed is recorded as failed; every other run
// is prepared for the executor.
#pragma once

#include <cstddef>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "model/experiment.h"
#include "runner/artifact_provider.h"
#include "runner/run_executor.h"
#include "runner/session.h"
#include "runner/status.h"
#include "util/result.h"

namespace foliolab {

// machine.timing: icount needs a backend that passes QEMU's -icount and TCG: with accel kvm, or
// on a backend that cannot (the host backend; libvirt, whose domain XML has no
// <qemu:commandline>), an error naming the first run it would refuse, before anything is built.
// Wall timing always passes.
Result<void> check_timing_mode(const Experiment& exp, const std::vector<Run>& runs,
                               const BackendNeeds& needs);

class Planner {
 public:
  Planner(const Experiment& exp, ArtifactProvider& artifacts, Backend& backend, BackendNeeds needs,
          RunStatus& status);

  // The runs to boot, in the order of `runs`; they point into this planner, which must outlive
  // them. An error (an accelerator that cannot work, a record that cannot be stored) stops the
  // session before any boot.
  Result<std::vector<PreparedRun>> plan(const std::vector<Run>& runs, Session& session);

 private:
  struct Failure {
    std::string status;  // build-failed, image-failed
    std::string reason;
  };
  Result<std::map<Arch, AccelVerdict>> settle_accel(const std::vector<const Run*>& to_do);
  std::optional<Failure> failed_artifact(const Run& run);
  Result<void> record_failure(const Run& run, const Failure& failure, Session& session);
  const Result<KernelArtifact>& kernel_for(const Run& run);
  const Result<ImageArtifact>& image_for(Arch arch);
  // The base images of the arches still to run, made on a second thread from the start, while
  // the first kernel builds (its tarball unpacking and its link leave a core idle): a newcomer's
  // first run waits for them no more after each kernel. image_for takes them from here; plan()
  // takes them all before it returns, so nothing is compiled while a guest runs.
  void prefetch_images(const std::vector<const Run*>& to_do);
  void take_prefetched();
  const Result<RootfsArtifact>& rootfs_for(Arch arch);
  const Result<std::vector<CpioEntry>>& files_for(const Run& run);

  const Experiment& exp_;
  ArtifactProvider& artifacts_;
  Backend& backend_;
  BackendNeeds needs_;
  RunStatus& status_;
  std::map<std::pair<size_t, Arch>, Result<KernelArtifact>> kernels_;
  std::map<Arch, Result<ImageArtifact>> images_;
  std::future<std::map<Arch, Result<ImageArtifact>>> prefetched_;  // joined when destroyed
  std::map<Arch, Result<RootfsArtifact>> rootfs_;
  std::map<std::tuple<size_t, size_t, Arch>, Result<std::vector<CpioEntry>>> files_;
};

}  // namespace foliolab
