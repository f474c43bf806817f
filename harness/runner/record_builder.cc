#include "runner/record_builder.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <regex>
#include <thread>

#include "util/build_info.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;

RunIdentity record_identity(const Experiment& exp, const Run& run) {
  const KernelSpec& k = exp.kernels[run.kernel];
  const KnobSet& ks = exp.knob_sets[run.knob_set];
  const WorkloadSpec& w = exp.workloads[run.workload];
  RunIdentity id;
  id.run_id = run.id;
  id.experiment = exp.name;
  id.arch = arch_info(run.arch).name;
  id.kernel = {k.name, k.source, k.patches, k.cmdline, k.config, k.options};
  id.machine = exp.machine;
  id.knob_set = {ks.name, ks.knobs, ks.sysctls, ks.cmdline};
  id.workload = {w.name, w.label, w.params};
  id.repeat = exp.repeat;
  return id;
}

HostInfo host_provenance() {
  HostInfo h;
  utsname u{};
  if (::uname(&u) == 0) h.kernel = std::string(u.release) + " " + u.machine;
  h.cpus = std::thread::hardware_concurrency();
  if (auto info = read_file("/proc/cpuinfo"); info.ok()) {
    std::smatch m;
    if (std::regex_search(*info, m, std::regex(R"(model name\s*:\s*([^\n]*))"))) {
      h.cpu_model = m[1];
    }
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) h.hostname = host;
  h.foliolab_revision = git_revision();
  return h;
}

void record_kernel(RunRecord& r, const KernelArtifact& k) {
  r.provenance.kernel_build_id = k.build_id;
  r.provenance.kernel_version = k.version;
  r.provenance.kernel_image = k.image.string();
  r.provenance.kernel_source = k.source;
  r.provenance.kernel_cache_hit = k.cache_hit;
  r.provenance.kernel_build_seconds = k.build_seconds;
}

void record_image(RunRecord& r, const ImageArtifact& i, const RootfsArtifact* rootfs) {
  r.provenance.image_id = i.image_id;
  r.provenance.image_workloads = i.workloads;
  if (rootfs) {
    r.provenance.rootfs_recipe = rootfs->recipe;
    r.provenance.rootfs_id = rootfs->image_id;
  }
}

void record_boot(RunRecord& r, const BootOutcome& boot, TimingMode timing) {
  Provenance& p = r.provenance;
  p.backend = boot.backend;
  p.accel = accel_name(boot.accel);
  p.emulator = boot.emulator;
  p.hypervisor_uri = boot.hypervisor_uri;
  p.hypervisor_host = boot.hypervisor_host;
  p.libvirt_version = boot.libvirt_version;
  p.lost_hosts = boot.lost_hosts;
  p.command = boot.command;
  p.emulator_exit = boot.exit;
  p.boot_seconds = boot.seconds;
  p.timings_emulated = boot.accel == Accel::kTcg;
  p.timing = std::string(
      timing_mode_name(p.timings_emulated ? timing : TimingMode::kWall));  // "wall" | "icount"
  p.lab_machine = boot.lab_machine;
  if (!boot.lab_machine.empty()) p.timing = "hardware";  // the run's kernel on the lab machine
  r.artifacts.console_log = boot.console_log.filename().string();
  r.artifacts.records = boot.records_file.filename().string();
  r.artifacts.emulator_log = boot.backend == "qemu" ? "qemu.log" : "";
}

void record_guest_report(RunRecord& r, const RunReport& report) {
  if (report.has_hello) {
    const GuestHello& h = report.hello;
    r.provenance.has_guest = true;
    r.provenance.guest = {h.agent_version, h.release,   h.version, h.machine,
                          h.cmdline,       h.page_size, h.nr_cpus, h.mem_total_kb};
  }
  r.knobs_found = report.knobs_initial;
  r.knobs_set = report.knobs_final;
  for (const KnobSetResult& k : report.knob_sets) {
    r.knob_results.push_back({k.path, k.requested, k.readback, k.status, k.error});
  }
  for (const RepResult& rep : report.reps) {
    r.reps.push_back({rep.rep, rep.wall_ns, rep.exit_status, rep.signal, rep.metrics, rep.deltas,
                      rep.tests, rep.warmup, rep.state_before, rep.state_after, rep.monitor,
                      rep.distributions});
  }
  r.prepared = report.prepared;
  r.repeat_stop = report.repeat_stop;
  for (const GuestError& e : report.errors) {
    r.guest_errors.push_back(e.stage.empty() ? e.message : e.stage + ": " + e.message);
  }
  r.problems = report.problems;
  if (!report.damage.empty()) {
    r.problems.push_back("record stream damaged at byte " + std::to_string(report.damage_offset) +
                         ": " + report.damage);
  }
}

FailureClass classify_report(const RunReport& report) {
  if (report.ok) return FailureClass::kNone;
  if (!report.errors.empty() || report.done_status != "ok") return FailureClass::kGuest;
  for (const RepResult& rep : report.reps) {
    if (rep.has_workload && !rep.succeeded()) return FailureClass::kWorkload;
  }
  return FailureClass::kGuest;
}

}  // namespace foliolab
