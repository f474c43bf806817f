#include "runner/experiment_runner.h"

#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <regex>
#include <thread>
#include <tuple>

#include "protocol/job.h"
#include "protocol/protocol.h"
#include "protocol/run_report.h"
#include "image/custom_workload.h"
#include "catalog/kselftest_catalog.h"
#include "image/image_builder.h"
#include "kernel/builder.h"
#include "model/matrix.h"
#include "runner/record_builder.h"
#include "runner/run_executor.h"
#include "runner/scheduler.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;


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

int guest_jobs_for(unsigned cores, uint64_t available_mb, uint64_t guest_memory_mb) {
  const uint64_t per_guest = guest_memory_mb + 256;
  const uint64_t by_memory = available_mb / per_guest;
  return static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>(std::max(cores, 1u), by_memory)));
}

int default_guest_jobs(uint64_t guest_memory_mb) {
  uint64_t available_mb = 0;
  if (auto info = read_file("/proc/meminfo"); info.ok()) {
    std::smatch m;
    if (std::regex_search(*info, m, std::regex(R"(MemAvailable:\s*(\d+) kB)"))) {
      available_mb = std::stoull(m[1]) / 1024;
    }
  }
  return guest_jobs_for(std::thread::hardware_concurrency(), available_mb, guest_memory_mb);
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
      images_(runner, kernel_options.project_root, kernel_options.cache),
      kselftests_(runner, {.project_root = kernel_options.project_root,
                           .spec_dir = kernel_options.spec_dir,
                           .cache = kernel_options.cache}) {}

Result<std::vector<CpioEntry>> BuildingArtifactProvider::workload_files(const WorkloadSpec& w,
                                                                        const KernelSpec& kernel, Arch arch) {
  if (is_kselftest(w)) return kselftests_.job_files(w, kernel, arch);
  return custom_workload_files(runner_, w, arch, kopt_.spec_dir, kopt_.cache);
}

Result<KernelArtifact> BuildingArtifactProvider::kernel(const KernelSpec& spec, Arch arch) {
  return kernels_.build(spec, arch);
}

Result<ImageArtifact> BuildingArtifactProvider::image(Arch arch) { return images_.build(arch); }

namespace {

// Status as plain lines through a log function (library callers and tests).
class LogLines : public RunStatus {
 public:
  explicit LogLines(std::function<void(const std::string&)> log) : log_(std::move(log)) {}
  void planned(int, int) override {}
  void note(const std::string& line) override { say(line); }
  void run_started(const std::string& run_id) override { say(fmt::format("  {} ...", run_id)); }
  void run_finished(const std::string& run_id, bool, const std::string& detail) override {
    say(fmt::format("  {}: {}", run_id, detail));
  }
  void build_progress(const std::string&, double, const std::string&) override {}

 private:
  void say(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    log_(line);
  }
  std::mutex mu_;
  std::function<void(const std::string&)> log_;
};

}  // namespace

ExperimentRunner::ExperimentRunner(ArtifactProvider& artifacts, Backend& backend, RunnerOptions options)
    : artifacts_(artifacts), backend_(backend), opt_(std::move(options)) {
  if (!opt_.log) opt_.log = [](const std::string&) {};
  status_ = opt_.status;
  if (!status_) {
    own_status_ = std::make_unique<LogLines>(opt_.log);
    status_ = own_status_.get();
  }
}

KernelArtifact host_kernel_artifact(const KernelSpec& spec, Arch arch) {
  KernelArtifact k;
  utsname u{};
  if (::uname(&u) == 0) k.version = u.release;
  k.kernel_name = spec.name;
  k.arch = arch;
  k.cache_hit = true;
  return k;
}

Result<SessionSummary> ExperimentRunner::run(const Experiment& exp, const std::vector<Run>& runs) {
  // A plan the backend cannot run is refused before a session exists.
  if (auto st = backend_.preflight(exp, runs); !st.ok()) return st.error();
  std::optional<ResultStore> store;
  StoredPlan plan{.experiment = exp.name,
                  .hash = opt_.shard ? opt_.shard->plan_hash : plan_hash(runs),
                  .plan_runs = opt_.shard ? opt_.shard->plan_runs : static_cast<int>(runs.size()),
                  .shard = opt_.shard ? std::optional(opt_.shard->shard) : std::nullopt};
  for (const auto& r : runs) plan.runs.push_back(record_identity(exp, r));
  std::optional<fs::path> resume = opt_.resume_dir;
  if (!resume && opt_.resume_latest) {
    resume = ResultStore::latest(opt_.results_root, exp.name, [&](const fs::path& dir) {
      auto s = ResultStore::open(dir);
      if (!s.ok()) return false;
      auto old = s->load_plan();
      return old.ok() && old->shard == plan.shard && (!plan.shard || old->hash == plan.hash);
    });
  }
  if (resume) {
    auto s = ResultStore::open(*resume);
    if (!s.ok()) return s.error();
    store.emplace(std::move(*s));
    if (auto old = store->load_plan(); old.ok() && (old->shard || plan.shard) &&
                                       (old->shard != plan.shard || old->hash != plan.hash)) {
      auto what = [](const StoredPlan& p) {
        return fmt::format("{} of plan {}", p.shard ? "shard " + p.shard->text() : "the whole", p.hash);
      };
      return make_error(fmt::format("cannot resume {}: it ran {}, this is {}", store->dir().string(),
                                    what(*old), what(plan)));
    }
    status_->note(fmt::format("resuming {}", store->dir().string()));
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
  if (auto st = store->save_plan(plan); !st.ok()) return st.error();

  SessionSummary summary{store->dir(), static_cast<int>(runs.size()), 0, 0, 0};
  const HostInfo host = host_provenance();
  // The run file is the source of truth; a failure to index it is reported, not fatal.
  auto save = [&](const RunRecord& record) -> Status {
    if (auto st = store->save_record(record); !st.ok()) return st;
    if (opt_.index) {
      if (auto st = opt_.index->add_run(store->dir(), record); !st.ok()) {
        status_->note(fmt::format("warning: index not updated ({}); `foliolab index rebuild` "
                             "recreates it", st.error().message));
      }
    }
    return {};
  };

  std::map<std::pair<size_t, Arch>, Result<KernelArtifact>> kernel_cache;
  std::map<Arch, Result<ImageArtifact>> image_cache;
  auto kernel_for = [&](const Run& run) -> const Result<KernelArtifact>& {
    auto key = std::make_pair(run.kernel, run.arch);
    if (!kernel_cache.count(key)) {
      const KernelSpec& spec = exp.kernels[run.kernel];
      kernel_cache.emplace(key, opt_.needs.kernel ? artifacts_.kernel(spec, run.arch)
                                                  : Result<KernelArtifact>(host_kernel_artifact(spec, run.arch)));
    }
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
    status_->note(fmt::format("accel {}: {} ({})", arch_info(run.arch).name, accel_name(verdict->accel),
                              verdict->reason));
    accel.emplace(run.arch, *verdict);
  }

  status_->planned(summary.total,
                   static_cast<int>(std::count_if(runs.begin(), runs.end(), [&](const Run& r) { return kept(r).has_value(); })));
  // Planner: every run to do gets its kernel, image and job files now, once per (kernel, arch),
  // arch and (workload, arch); a run whose kernel or image failed is recorded as failed here.
  std::map<std::tuple<size_t, size_t, Arch>, Result<std::vector<CpioEntry>>> files_cache;
  std::vector<PreparedRun> todo;
  for (const Run& run : runs) {
    if (auto was_ok = kept(run)) {
      ++summary.skipped;
      (*was_ok ? summary.ok : summary.failed)++;
      continue;
    }
    auto pre_failure = [&](const std::string& status, const std::string& reason) -> Status {
      RunRecord record;
      record.id = record_identity(exp, run);
      record.provenance.host = host;
      record.started = record.finished = utc_iso_now();
      record.status = status;
      record.failure = FailureClass::kHost;
      record.reason = reason;
      if (kernel_for(run).ok()) record_kernel(record, *kernel_for(run));
      ++summary.failed;
      status_->run_finished(run.id, false, fmt::format("{}: {}", status, reason));
      return save(record);
    };
    const auto& kernel = kernel_for(run);
    if (!kernel.ok()) {
      if (auto st = pre_failure("build-failed", kernel.error().message); !st.ok()) return st.error();
      continue;
    }
    const auto& image = image_for(run.arch);
    if (!image.ok()) {
      if (auto st = pre_failure("image-failed", image.error().message); !st.ok()) return st.error();
      continue;
    }
    auto fkey = std::make_tuple(run.workload, run.kernel, run.arch);
    if (!files_cache.count(fkey)) {
      files_cache.emplace(fkey, artifacts_.workload_files(exp.workloads[run.workload], exp.kernels[run.kernel], run.arch));
    }
    const auto& files = files_cache.at(fkey);
    if (!files.ok()) {
      if (auto st = pre_failure("image-failed", files.error().message); !st.ok()) return st.error();
      continue;
    }
    todo.push_back({.run = &run, .kernel = &*kernel, .image = &*image, .job_files = *files,
                    .accel = accel.at(run.arch)});
  }

  // Scheduler and executor: up to opt_.jobs guests at once; each run's record is saved as it
  // ends. A host failure stops the launch of further runs, keeping every finished one.
  RunExecutor executor(exp, backend_, *store, host,
                       {.min_free_bytes = opt_.min_free_bytes, .free_bytes = opt_.free_bytes, .needs = opt_.needs},
                       *status_);
  std::mutex mu;  // summary, the store's index connection
  std::string host_error;
  auto exclusive = [&](size_t i) {
    return !opt_.needs.parallel || exp.exclusive || exp.workloads[todo[i].run->workload].exclusive;
  };
  Scheduler(opt_.jobs).run(
      todo.size(), exclusive,
      [&](size_t i, const TaskSlot& slot) {
        RunOutcome outcome = executor.execute(todo[i]);
        std::lock_guard<std::mutex> lock(mu);
        if (outcome.end == RunOutcome::End::kCancelled) return false;
        if (outcome.end == RunOutcome::End::kHostFailure) {
          if (host_error.empty()) host_error = outcome.host_error;
          return false;
        }
        outcome.record.provenance.guests_beside = slot.max_beside();
        if (auto st = save(outcome.record); !st.ok()) {
          if (host_error.empty()) host_error = results_write_failure(st.error().message, store->dir());
          return false;
        }
        const RunRecord& r = outcome.record;
        if (r.ok()) {
          ++summary.ok;
          status_->run_finished(todo[i].run->id, true,
                                fmt::format("ok ({:.1f}s, {})", r.provenance.boot_seconds, r.provenance.accel));
        } else {
          ++summary.failed;
          status_->run_finished(todo[i].run->id, false, fmt::format("{}: {}", r.status, r.reason));
        }
        return true;
      },
      cancel_requested);
  if (!host_error.empty()) {
    return make_error(fmt::format("host failure, matrix stopped: {}\n{} run(s) of {} kept in {}; fix the host, "
                                  "then continue with --resume-dir {}", host_error, summary.ok + summary.failed,
                                  summary.total, store->dir().string(), store->dir().string()));
  }
  if (cancel_requested()) return make_error(fmt::format("interrupted; resume with --resume-dir {}", store->dir().string()));
  return summary;
}

}  // namespace foliolab
