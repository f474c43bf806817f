#include "runner/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "runner/record_builder.h"
#include "util/time_stamp.h"

namespace foliolab {

namespace {

// "q.yaml:7:3: machine.timing: icount" when the file set it, "--timing icount" otherwise.
std::string timing_origin(const MachineSpec& m) {
  return m.timing_loc.line > 0 ? m.timing_loc.str() + ": machine.timing: icount"
                               : std::string("--timing icount");
}

}  // namespace

Result<void> check_timing_mode(const Experiment& exp, const std::vector<Run>& runs,
                               const BackendNeeds& needs) {
  const MachineSpec& m = exp.machine;
  if (m.timing != TimingMode::kIcount || runs.empty()) return {};
  std::string why;
  if (!needs.icount) {
    why = fmt::format("backend {} cannot run guests under QEMU's -icount (only backend qemu can)",
                      m.backend);
  } else if (m.accel == AccelChoice::kKvm) {
    why = "instruction-time needs TCG, but accel is kvm (use accel: tcg or auto)";
  } else {
    return {};
  }
  const std::string more =
      runs.size() > 1 ? fmt::format(" and {} more run(s)", runs.size() - 1) : std::string();
  return make_error(
      fmt::format("{}: {}: refused for run {}{}", timing_origin(m), why, runs.front().id, more));
}

Planner::Planner(const Experiment& exp, ArtifactProvider& artifacts, Backend& backend,
                 BackendNeeds needs, RunStatus& status)
    : exp_(exp), artifacts_(artifacts), backend_(backend), needs_(needs), status_(status) {}

Result<std::vector<PreparedRun>> Planner::plan(const std::vector<Run>& runs, Session& session) {
  FL_TRY(check_timing_mode(exp_, runs, needs_));
  std::vector<const Run*> to_do;
  for (const Run& run : runs) {
    if (auto was_ok = session.kept(run)) {
      session.count_kept(*was_ok);
    } else {
      to_do.push_back(&run);
    }
  }
  auto accel = settle_accel(to_do);
  if (!accel.ok()) return accel.error();
  status_.planned(static_cast<int>(runs.size()), static_cast<int>(runs.size() - to_do.size()));
  prefetch_images(to_do);
  std::vector<PreparedRun> prepared;
  for (const Run* run : to_do) {
    if (auto failure = failed_artifact(*run)) {
      FL_TRY(record_failure(*run, *failure, session));
      continue;
    }
    prepared.push_back({.run = run,
                        .kernel = &*kernel_for(*run),
                        .image = &*image_for(run->arch),
                        .rootfs = exp_.machine.image.empty() ? nullptr : &*rootfs_for(run->arch),
                        .job_files = *files_for(*run),
                        .accel = accel->at(run->arch)});
  }
  take_prefetched();  // an arch whose every run failed for its kernel
  return prepared;
}

Result<std::map<Arch, AccelVerdict>> Planner::settle_accel(const std::vector<const Run*>& to_do) {
  std::map<Arch, AccelVerdict> accel;
  for (const Run* run : to_do) {
    if (accel.count(run->arch)) continue;
    auto images = [this, run]() -> Result<ProbeImages> {
      const auto& kernel = kernel_for(*run);
      if (!kernel.ok()) return kernel.error();
      const auto& image = image_for(run->arch);
      if (!image.ok()) return image.error();
      return ProbeImages{kernel->image, image->cpio};
    };
    // Instruction-time runs only under TCG: `auto` probes nothing and says why.
    const bool icount = exp_.machine.timing == TimingMode::kIcount;
    const AccelChoice choice = icount ? AccelChoice::kTcg : exp_.machine.accel;
    auto verdict = backend_.resolve_accel({.choice = choice, .arch = run->arch, .images = images});
    if (verdict.ok() && icount && exp_.machine.accel == AccelChoice::kAuto) {
      verdict->reason = "auto: machine.timing icount forces TCG (instruction-time)";
    }
    const std::string_view arch = arch_info(run->arch).name;
    if (!verdict.ok()) {
      return in_context(fmt::format("{} ({})", arch, backend_.name()), verdict.error());
    }
    status_.note(
        fmt::format("accel {}: {} ({})", arch, accel_name(verdict->accel), verdict->reason));
    accel.emplace(run->arch, *verdict);
  }
  return accel;
}

// The first of the run's kernel, image and job files that could not be had.
std::optional<Planner::Failure> Planner::failed_artifact(const Run& run) {
  if (const auto& kernel = kernel_for(run); !kernel.ok()) {
    return Failure{"build-failed", kernel.error().message};
  }
  if (const auto& image = image_for(run.arch); !image.ok()) {
    return Failure{"image-failed", image.error().message};
  }
  if (!exp_.machine.image.empty()) {
    if (const auto& rootfs = rootfs_for(run.arch); !rootfs.ok()) {
      return Failure{"image-failed", rootfs.error().message};
    }
  }
  if (const auto& files = files_for(run); !files.ok()) {
    return Failure{"image-failed", files.error().message};
  }
  return std::nullopt;
}

Result<void> Planner::record_failure(const Run& run, const Failure& failure, Session& session) {
  RunRecord record;
  record.id = record_identity(exp_, run);
  record.provenance.host = session.host();
  record.started = record.finished = utc_iso_now();
  record.status = failure.status;
  record.failure = FailureClass::kHost;
  record.reason = failure.reason;
  if (kernel_for(run).ok()) record_kernel(record, *kernel_for(run));
  session.tally(record);
  return session.save(record);
}

const Result<KernelArtifact>& Planner::kernel_for(const Run& run) {
  auto key = std::make_pair(run.kernel, run.arch);
  if (!kernels_.count(key)) {
    const KernelSpec& spec = exp_.kernels[run.kernel];
    kernels_.emplace(key, needs_.kernel
                              ? artifacts_.kernel(spec, run.arch)
                              : Result<KernelArtifact>(host_kernel_artifact(spec, run.arch)));
  }
  return kernels_.at(key);
}

void Planner::prefetch_images(const std::vector<const Run*>& to_do) {
  std::vector<Arch> archs;
  for (const Run* run : to_do) {
    if (!images_.count(run->arch) &&
        std::find(archs.begin(), archs.end(), run->arch) == archs.end())
      archs.push_back(run->arch);
  }
  if (archs.empty()) return;
  prefetched_ = std::async(std::launch::async, [this, archs] {
    std::map<Arch, Result<ImageArtifact>> made;
    for (Arch arch : archs) made.emplace(arch, artifacts_.image(arch));
    return made;
  });
}

void Planner::take_prefetched() {
  if (!prefetched_.valid()) return;
  for (auto& [arch, image] : prefetched_.get()) images_.emplace(arch, std::move(image));
}

const Result<ImageArtifact>& Planner::image_for(Arch arch) {
  if (!images_.count(arch)) take_prefetched();
  if (!images_.count(arch)) images_.emplace(arch, artifacts_.image(arch));
  return images_.at(arch);
}

const Result<RootfsArtifact>& Planner::rootfs_for(Arch arch) {
  if (!rootfs_.count(arch)) rootfs_.emplace(arch, artifacts_.rootfs(exp_.machine.image, arch));
  return rootfs_.at(arch);
}

const Result<std::vector<CpioEntry>>& Planner::files_for(const Run& run) {
  auto key = std::make_tuple(run.workload, run.kernel, run.arch);
  if (!files_.count(key)) {
    files_.emplace(key, artifacts_.workload_files(exp_.workloads[run.workload],
                                                  exp_.kernels[run.kernel], run.arch));
  }
  return files_.at(key);
}

}  // namespace foliolab
