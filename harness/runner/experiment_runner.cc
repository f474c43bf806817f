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
  for (const Run& run : runs) {
    if (cancel_requested()) break;
    if (auto old = store->load_record(run.id); old.ok()) {
      if (!opt_.retry_failed || old->ok()) {
        ++summary.skipped;
        (old->ok() ? summary.ok : summary.failed)++;
        continue;
      }
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
    auto key = std::make_pair(run.kernel, run.arch);
    if (!kernel_cache.count(key)) kernel_cache.emplace(key, artifacts_.kernel(kspec, run.arch));
    const auto& kernel = kernel_cache.at(key);
    if (!kernel.ok()) {
      if (auto st = fail("build-failed", FailureClass::kHost, kernel.error().message); !st.ok()) {
        return st.error();
      }
      continue;
    }
    record_kernel(record, *kernel);
    if (!image_cache.count(run.arch)) image_cache.emplace(run.arch, artifacts_.image(run.arch));
    const auto& image = image_cache.at(run.arch);
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
    BootRequest req{.arch = run.arch, .machine = exp.machine, .kernel = kernel->image, .initrd = initrd,
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
    auto bytes = read_file(boot->records_file);
    RunReport report = parse_run_report(bytes.ok() ? *bytes : std::string(), exp.repeat);
    const std::string console = read_file(boot->console_log).ok() ? *read_file(boot->console_log) : "";
    FailureClass who = classify_report(report);
    if (report.has_hello && !report.hello.version.empty() &&
        report.hello.version.find(kernel->build_id) == std::string::npos) {
      report.ok = false;
      report.reason = fmt::format("guest runs kernel '{}', not build {}", report.hello.version, kernel->build_id);
      who = FailureClass::kHarness;
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
