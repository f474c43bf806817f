#include "runner/run_executor.h"

#include <sys/statvfs.h>

#include <fmt/format.h>
#include <chrono>
#include <cstdint>
#include <regex>

#include "catalog/repeat_plan.h"
#include "image/scratch_disk.h"
#include "protocol/job.h"
#include "protocol/output_adapter.h"
#include "protocol/run_report.h"
#include "runner/record_builder.h"
#include "util/fs.h"
#include "util/process.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

}  // namespace

std::string wrong_kernel(const RunReport& report, const KernelArtifact& kernel) {
  if (!report.has_hello) return {};
  const GuestHello& h = report.hello;
  if (!h.version.empty() && h.version.find(kernel.build_id) == std::string::npos) {
    return fmt::format("guest runs kernel '{}', not build {}", h.version, kernel.build_id);
  }
  // uname -r is the Makefile's version plus LOCALVERSION (e.g. "6.12.117" or "6.12.117-rc1+").
  if (!kernel.version.empty() && !h.release.empty() && h.release.rfind(kernel.version, 0) != 0) {
    return fmt::format("guest reports release '{}', but the built tree is version {}", h.release,
                       kernel.version);
  }
  return {};
}

std::string find_panic(const std::string& console) {
  std::smatch m;
  static const std::regex kPanic(R"(Kernel panic - not syncing:[^\r\n]*)");
  if (std::regex_search(console, m, kPanic)) return m[0];
  return {};
}

uint64_t filesystem_free_bytes(const fs::path& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return UINT64_MAX;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

std::string results_write_failure(const std::string& error, const fs::path& dir) {
  const bool full = error.find("No space left") != std::string::npos ||
                    error.find("Disk quota exceeded") != std::string::npos;
  const bool io = error.find("Input/output error") != std::string::npos;
  return fmt::format("{}: {} ({})",
                     full ? "results disk full"
                     : io ? "results disk I/O error"
                          : "cannot write results",
                     error, dir.string());
}

RunExecutor::RunExecutor(const Experiment& exp, Backend& backend, const ResultStore& store,
                         HostInfo host, ExecutorOptions options, RunStatus& status)
    : exp_(exp),
      backend_(backend),
      store_(store),
      host_(std::move(host)),
      opt_(std::move(options)),
      status_(status) {
  if (!opt_.free_bytes) opt_.free_bytes = filesystem_free_bytes;
  if (!opt_.make_scratch_disk) {
    opt_.make_scratch_disk = [](const fs::path& file, uint64_t bytes) {
      RealProcessRunner runner;
      return make_scratch_disk(runner, file, bytes);
    };
  }
}

RunOutcome RunExecutor::host_failure(std::string why) const {
  RunOutcome out;
  out.end = RunOutcome::End::kHostFailure;
  out.host_error = std::move(why);
  return out;
}

RunOutcome RunExecutor::execute(const PreparedRun& p) const {
  const Run& run = *p.run;
  RunOutcome out;
  RunRecord& record = out.record;
  record.id = record_identity(exp_, run);
  record.provenance.host = host_;
  record.started = utc_iso_now();
  record_kernel(record, *p.kernel);
  record_image(record, *p.image, p.rootfs);
  auto req = stage(p, store_.run_dir(run.id));
  if (!req.ok()) return host_failure(req.error().message);
  record.artifacts.job = "job.txt";
  status_.run_started(run.id);
  auto boot = backend_.boot(*req);
  std::error_code ec;
  // The base image is cached and job.txt is kept: nothing is lost. The swap disk is this run's.
  if (!req->initrd.empty()) fs::remove(req->initrd, ec);
  if (!req->swap_disk.empty()) fs::remove(req->swap_disk, ec);
  if (!req->scratch_disk.empty()) fs::remove(req->scratch_disk, ec);
  if (!boot.ok()) return host_failure(boot.error().message);  // e.g. the emulator is missing
  if (cancel_requested()) {
    out.end = RunOutcome::End::kCancelled;  // an interrupted run leaves no record: resume reruns it
    return out;
  }
  record_boot(record, *boot, exp_.machine.timing);
  record.provenance.accel_requested = std::string(accel_choice_name(exp_.machine.accel));
  record.provenance.accel_reason = p.accel.reason;
  auto [report, who] = read_report(p, *boot);
  return conclude(std::move(out), *boot, report, who);
}

Result<BootRequest> RunExecutor::stage(const PreparedRun& p, const fs::path& dir) const {
  const Run& run = *p.run;
  // A churn step writes its files into a scratch disk in the run's folder.
  const uint64_t scratch_bytes =
      scratch_disk_bytes(run_prepare_steps(exp_, run), exp_.machine.memory_mb);
  const uint64_t needed = opt_.min_free_bytes + scratch_bytes;
  if (uint64_t free = opt_.free_bytes(store_.dir()); free < needed) {
    return make_error(
        fmt::format("results disk full: {} free on the filesystem of {}, {} needed "
                    "for this run",
                    mib(free), store_.dir().string(), mib(needed)));
  }
  auto job = render_job(exp_, run);
  if (!job.ok()) return make_error("harness: " + job.error().message);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error(results_write_failure(ec.message(), dir));
  const fs::path initrd = opt_.needs.initrd ? dir / "initrd.cpio" : fs::path();
  if (!initrd.empty()) {
    if (auto st = write_run_initrd(p.image->cpio, *job, initrd, p.job_files); !st.ok()) {
      return make_error(results_write_failure(st.error().message, dir));
    }
  }
  if (auto st = write_file_atomic(dir / "job.txt", *job); !st.ok()) {
    return make_error(results_write_failure(st.error().message, dir));
  }
  fs::path swap_disk;
  if (exp_.machine.swap.type == SwapSpec::Type::kDisk) {
    swap_disk = dir / "swap.img";  // sparse: the guest's swap-outs are all it occupies
    fs::remove(swap_disk, ec);
    if (!write_file_atomic(swap_disk, "").ok()) return make_error(results_write_failure("", dir));
    fs::resize_file(swap_disk, exp_.machine.swap.size_mb << 20, ec);
    if (ec) return make_error(results_write_failure(ec.message(), dir));
  }
  fs::path scratch_disk;
  if (scratch_bytes) {
    scratch_disk = dir / "scratch.img";  // sparse: what the churn writes is all it occupies
    if (auto st = opt_.make_scratch_disk(scratch_disk, scratch_bytes); !st.ok()) return st.error();
  }
  std::string extra = exp_.kernels[run.kernel].cmdline;
  const std::string& ks_cmdline = exp_.knob_sets[run.knob_set].cmdline;
  if (!ks_cmdline.empty()) extra += (extra.empty() ? "" : " ") + ks_cmdline;
  const KernelArtifact& kernel = *p.kernel;
  return BootRequest{.arch = run.arch,
                     .accel = p.accel.accel,
                     .machine = exp_.machine,
                     .kernel = kernel.boot_image.empty() ? kernel.image : kernel.boot_image,
                     .initrd = initrd,
                     .base_image = p.image->cpio,
                     .job_text = *job,
                     .job_files = p.job_files,
                     .root_disk = p.rootfs ? p.rootfs->disk : fs::path(),
                     .swap_disk = swap_disk,
                     .scratch_disk = scratch_disk,
                     .cmdline = kernel_cmdline(run.arch, extra),
                     .run_dir = dir,
                     .timeout = std::chrono::seconds(exp_.timeout_s)};
}

std::pair<RunReport, FailureClass> RunExecutor::read_report(const PreparedRun& p,
                                                            const BootOutcome& boot) const {
  auto bytes = read_file(boot.records_file);
  RunReport report =
      parse_run_report(bytes.ok() ? *bytes : std::string(), repeat_plan(exp_, *p.run),
                       output_adapter_for(exp_.workloads[p.run->workload]));
  // `evidence: {function_profile}`: each rep's whole profile beside run.json.
  for (const RepResult& rep : report.reps) {
    if (rep.function_profile.empty()) continue;
    const fs::path file =
        store_.run_dir(p.run->id) / fmt::format("function_profile.{}.txt", rep.rep);
    if (auto st = write_file_atomic(file, rep.function_profile); !st.ok()) {
      report.problems.push_back(st.error().message);
    }
  }
  FailureClass who = classify_report(report);
  if (auto wrong = wrong_kernel(report, *p.kernel); !wrong.empty()) {
    report.ok = false;
    report.reason = wrong;
    who = FailureClass::kHarness;
  }
  // The emulator's own words beat any guess about the agent when QEMU died or nothing arrived.
  if (!report.ok && (boot.abnormal_exit || report.records == 0) && !boot.timed_out) {
    report.reason = fmt::format("{} ended: {} ({})", boot.backend == "qemu" ? "QEMU" : boot.backend,
                                boot.exit, report.reason);
    if (boot.abnormal_exit) who = FailureClass::kHost;
  }
  return {std::move(report), who};
}

RunOutcome RunExecutor::conclude(RunOutcome out, const BootOutcome& boot, const RunReport& report,
                                 FailureClass who) const {
  RunRecord& record = out.record;
  record_guest_report(record, report);
  auto ended = [&](const std::string& status, FailureClass failure, const std::string& reason) {
    record.status = status;
    record.failure = failure;
    record.reason = reason;
    record.finished = utc_iso_now();
    return std::move(out);
  };
  if (boot.timed_out && !boot.lab_machine.empty()) {  // the kexec backend's watchdog, in its words
    return ended("timed-out", FailureClass::kGuest,
                 fmt::format("watchdog on {}: {}; console log: {}", boot.lab_machine.name,
                             boot.exit, boot.console_log.string()));
  }
  if (boot.timed_out) {
    return ended("timed-out", FailureClass::kGuest,
                 fmt::format("guest did not finish within {}s and was killed; console log: {}",
                             exp_.timeout_s, boot.console_log.string()));
  }
  if (!report.ok) {
    // A stream torn (or never written) because the host's disk filled up is the host's
    // failure, not the guest's.
    if (!report.damage.empty() || report.records == 0) {
      if (uint64_t free = opt_.free_bytes(store_.dir()); free < opt_.min_free_bytes) {
        return host_failure(
            fmt::format("results disk full while the guest wrote its records ({} "
                        "free on the filesystem of {}; {})",
                        mib(free), store_.dir().string(), report.reason));
      }
    }
    auto console = read_file(boot.console_log);
    std::string reason = report.reason;
    if (std::string panic = find_panic(console.ok() ? *console : ""); !panic.empty()) {
      reason = panic + " (" + reason + ")";
    }
    return ended("failed", who, reason + "; console log: " + boot.console_log.string());
  }
  record.status = "ok";
  record.finished = utc_iso_now();
  return out;
}

}  // namespace foliolab
