#include "runner/experiment_runner.h"

#include <chrono>
#include <fmt/format.h>
#include <map>
#include <regex>

#include "guest/job.h"
#include "guest/protocol.h"
#include "guest/run_report.h"
#include "image/custom_workload.h"
#include "image/image_builder.h"
#include "kernel/builder.h"
#include "model/matrix.h"
#include "runner/record_builder.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

std::string now_iso() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string wrong_kernel(const RunReport& report, const KernelArtifact& kernel) {
  if (!report.has_hello) return {};
  const GuestHello& h = report.hello;
  if (!h.version.empty() && h.version.find(kernel.build_id) == std::string::npos) {
    return fmt::format("guest runs kernel '{}', not build {}", h.version, kernel.build_id);
  }
  // uname -r is the Makefile's version plus LOCALVERSION (e.g. "6.12.117" or "6.12.117-rc1+").
  if (!kernel.version.empty() && !h.release.empty() && h.release.rfind(kernel.version, 0) != 0) {
    return fmt::format("guest reports release '{}', but the built tree is version {}", h.release, kernel.version);
  }
  return {};
}

std::string find_panic(const std::string& console) {
  std::smatch m;
  static const std::regex kPanic(R"(Kernel panic - not syncing:[^\r\n]*)");
  if (std::regex_search(console, m, kPanic)) return m[0];
  return {};
}

BuildingArtifactProvider::BuildingArtifactProvider(ProcessRunner& runner, KernelBuildOptions kernel_options)
    : runner_(runner),
      kopt_(kernel_options),
      kernels_(runner, kernel_options),
      images_(runner, kernel_options.project_root, kernel_options.cache) {}

Result<std::vector<CpioEntry>> BuildingArtifactProvider::workload_files(const WorkloadSpec& w, Arch arch) {
  return custom_workload_files(runner_, w, arch, kopt_.spec_dir, kopt_.cache);
}

Result<KernelArtifact> BuildingArtifactProvider::kernel(const KernelSpec& spec, Arch arch) {
  return kernels_.build(spec, arch);
}

Result<ImageArtifact> BuildingArtifactProvider::image(Arch arch) { return images_.build(arch); }

ExperimentRunner::ExperimentRunner(ArtifactProvider& artifacts, Backend& backend, RunnerOptions options)
    : artifacts_(artifacts), backend_(backend), opt_(std::move(options)) {
  if (!opt_.log) opt_.log = [](const std::string&) {};
}

Result<SessionSummary> ExperimentRunner::run(const Experiment& exp, const std::vector<Run>& runs) {
  std::optional<ResultStore> store;
  std::optional<fs::path> resume = opt_.resume_dir;
  if (!resume && opt_.resume_latest) resume = ResultStore::latest(opt_.results_root, exp.name);
  if (resume) {
    auto s = ResultStore::open(*resume);
    if (!s.ok()) return s.error();
    store.emplace(std::move(*s));
    opt_.log(fmt::format("resuming {}", store->dir().string()));
  } else {
    auto s = ResultStore::create(opt_.results_root, exp.name);
    if (!s.ok()) return s.error();
    store.emplace(std::move(*s));
  }
  // The experiment as last run against this session (a resume may have edited it); each run
  // record carries its own full identity, so nothing is lost by replacing it.
  if (auto yaml = read_file(exp.file); yaml.ok()) {
    if (auto st = store->save_text("experiment.yaml", *yaml); !st.ok()) return st.error();
  }
  std::vector<RunIdentity> plan;
  for (const auto& r : runs) plan.push_back(record_identity(exp, r));
  if (auto st = store->save_plan(plan); !st.ok()) return st.error();

  SessionSummary summary{store->dir(), static_cast<int>(runs.size()), 0, 0, 0};
  const HostInfo host = host_provenance();
  // The run file is the source of truth; a failure to index it is reported, not fatal.
  auto save = [&](const RunRecord& record) -> Status {
    if (auto st = store->save_record(record); !st.ok()) return st;
    if (opt_.index) {
      if (auto st = opt_.index->add_run(store->dir(), record); !st.ok()) {
        opt_.log(fmt::format("warning: index not updated ({}); `foliolab index rebuild` "
                             "recreates it", st.error().message));
      }
    }
    return {};
  };

  std::map<std::pair<size_t, Arch>, Result<KernelArtifact>> kernel_cache;
  std::map<Arch, Result<ImageArtifact>> image_cache;
  auto kernel_for = [&](const Run& run) -> const Result<KernelArtifact>& {
    auto key = std::make_pair(run.kernel, run.arch);
    if (!kernel_cache.count(key)) kernel_cache.emplace(key, artifacts_.kernel(exp.kernels[run.kernel], run.arch));
    return kernel_cache.at(key);
  };
  auto image_for = [&](Arch arch) -> const Result<ImageArtifact>& {
    if (!image_cache.count(arch)) image_cache.emplace(arch, artifacts_.image(arch));
    return image_cache.at(arch);
  };
  // A finished run is kept (a failed one too, unless --retry-failed).
  auto kept = [&](const Run& run) -> std::optional<bool> {  // whether the kept run was ok
    auto old = store->load_record(run.id);
    if (!old.ok()) return std::nullopt;
    if (opt_.retry_failed && !old->ok()) return std::nullopt;
    return old->ok();
  };

  // The accelerator of each arch is settled before any run: an explicit `kvm` that cannot work
  // stops here, and `auto` says once why it chose TCG.
  std::map<Arch, AccelVerdict> accel;
  for (const Run& run : runs) {
    if (accel.count(run.arch) || kept(run)) continue;
    auto verdict = backend_.resolve_accel(
        {.choice = exp.machine.accel, .arch = run.arch, .images = [&]() -> Result<ProbeImages> {
           const auto& kernel = kernel_for(run);
           if (!kernel.ok()) return kernel.error();
           const auto& image = image_for(run.arch);
           if (!image.ok()) return image.error();
           return ProbeImages{kernel->image, image->cpio};
         }});
    if (!verdict.ok()) {
      return make_error(fmt::format("{} ({}): {}", arch_info(run.arch).name, backend_.name(), verdict.error().message));
    }
    opt_.log(fmt::format("accel {}: {} ({})", arch_info(run.arch).name, accel_name(verdict->accel), verdict->reason));
    accel.emplace(run.arch, *verdict);
  }

  for (const Run& run : runs) {
    if (cancel_requested()) break;
    if (auto was_ok = kept(run)) {
      ++summary.skipped;
      (*was_ok ? summary.ok : summary.failed)++;
      continue;
    }
    RunRecord record;
    record.id = record_identity(exp, run);
    record.provenance.host = host;
    record.started = now_iso();
    auto fail = [&](const std::string& status, FailureClass who, const std::string& reason) {
      record.status = status;
      record.failure = who;
      record.reason = reason;
      record.finished = now_iso();
      ++summary.failed;
      opt_.log(fmt::format("  {}: {}: {}", run.id, status, reason));
      return save(record);
    };
    const KernelSpec& kspec = exp.kernels[run.kernel];
    const auto& kernel = kernel_for(run);
    if (!kernel.ok()) {
      if (auto st = fail("build-failed", FailureClass::kHost, kernel.error().message); !st.ok()) {
        return st.error();
      }
      continue;
    }
    record_kernel(record, *kernel);
    const auto& image = image_for(run.arch);
    if (!image.ok()) {
      if (auto st = fail("image-failed", FailureClass::kHost, image.error().message); !st.ok()) {
        return st.error();
      }
      continue;
    }
    record_image(record, *image);
    auto job = render_job(exp, run);
    if (!job.ok()) return job.error();
    const fs::path dir = store->run_dir(run.id);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path initrd = dir / "initrd.cpio";
    auto job_files = artifacts_.workload_files(exp.workloads[run.workload], run.arch);
    if (!job_files.ok()) {
      if (auto st = fail("image-failed", FailureClass::kHost, job_files.error().message);
          !st.ok()) {
        return st.error();
      }
      continue;
    }
    if (auto st = write_run_initrd(image->cpio, *job, initrd, *job_files); !st.ok()) return st.error();
    if (write_file_atomic(dir / "job.txt", *job).ok()) record.artifacts.job = "job.txt";
    std::string extra = kspec.cmdline;
    const std::string& ks_cmdline = exp.knob_sets[run.knob_set].cmdline;
    if (!ks_cmdline.empty()) extra += (extra.empty() ? "" : " ") + ks_cmdline;
    const AccelVerdict& verdict = accel.at(run.arch);
    BootRequest req{.arch = run.arch, .accel = verdict.accel, .machine = exp.machine, .kernel = kernel->image, .initrd = initrd,
                    .cmdline = kernel_cmdline(run.arch, extra), .run_dir = dir,
                    .timeout = std::chrono::seconds(exp.timeout_s)};
    opt_.log(fmt::format("  {} ...", run.id));
    auto boot = backend_.boot(req);
    fs::remove(initrd, ec);  // the base image is cached and job.txt is kept: nothing is lost
    if (!boot.ok()) {
      if (auto st = fail("boot-failed", FailureClass::kHost, boot.error().message); !st.ok()) {
        return st.error();
      }
      continue;
    }
    record_boot(record, *boot);
    record.provenance.accel_requested = std::string(accel_choice_name(exp.machine.accel));
    record.provenance.accel_reason = verdict.reason;
    auto bytes = read_file(boot->records_file);
    RunReport report = parse_run_report(bytes.ok() ? *bytes : std::string(), exp.repeat,
                                        output_adapter_for(exp.workloads[run.workload]));
    const std::string console = read_file(boot->console_log).ok() ? *read_file(boot->console_log) : "";
    FailureClass who = classify_report(report);
    if (auto wrong = wrong_kernel(report, *kernel); !wrong.empty()) {
      report.ok = false;
      report.reason = wrong;
      who = FailureClass::kHarness;
    }
    // The emulator's own words beat any guess about the agent when QEMU died or nothing arrived.
    if (!report.ok && (boot->abnormal_exit || report.records == 0) && !boot->timed_out) {
      report.reason = fmt::format("{} ended: {} ({})", boot->backend == "qemu" ? "QEMU" : boot->backend,
                                  boot->exit, report.reason);
      if (boot->abnormal_exit) who = FailureClass::kHost;
    }
    record_guest_report(record, report);
    if (cancel_requested()) break;  // an interrupted run leaves no record: resume reruns it
    if (boot->timed_out) {
      std::string reason = fmt::format("guest did not finish within {}s and was killed; console log: {}",
                                       exp.timeout_s, boot->console_log.string());
      if (auto st = fail("timed-out", FailureClass::kGuest, reason); !st.ok()) return st.error();
      continue;
    }
    if (!report.ok) {
      std::string reason = report.reason;
      if (std::string panic = find_panic(console); !panic.empty()) reason = panic + " (" + reason + ")";
      if (auto st = fail("failed", who, reason + "; console log: " + boot->console_log.string());
          !st.ok()) {
        return st.error();
      }
      continue;
    }
    record.status = "ok";
    record.finished = now_iso();
    if (auto st = save(record); !st.ok()) return st.error();
    ++summary.ok;
    opt_.log(fmt::format("  {}: ok ({:.1f}s, {})", run.id, boot->seconds, accel_name(boot->accel)));
  }
  if (cancel_requested()) return make_error(fmt::format("interrupted; resume with --resume {}", store->dir().string()));
  return summary;
}

}  // namespace foliolab
