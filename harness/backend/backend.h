// How a guest gets booted. QemuBackend runs QEMU directly; HostBackend (host_backend.h) runs the
// agent on this machine. Backends are listed, with what they need, in backend_table.h. They only
// boot and collect: deciding whether the run succeeded is the record stream's job
// (QEMU exits 0 after a kernel panic too).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backend/accel_probe.h"
#include "backend/qemu_args.h"
#include "image/cpio.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "model/lab_machine.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct BootRequest {
  Arch arch = Arch::kX86_64;
  Accel accel = Accel::kTcg;  // as resolved by Backend::resolve_accel
  MachineSpec machine;
  std::filesystem::path kernel;
  std::filesystem::path initrd;  // per-run initrd (base image + job); empty when not needed
  // The same parts unpacked, for a backend that needs no initrd (BackendNeeds::initrd false).
  std::filesystem::path base_image;  // the arch's cached base initramfs (agent and workloads)
  std::string job_text;              // job/job.txt
  std::vector<CpioEntry> job_files;  // more files for job/ (a custom program)
  // machine.image: the Debian root filesystem's ext4 disk, attached read-only to the image file
  // (QEMU's snapshot=on: the guest's writes go to a throw-away overlay, so every run starts from
  // the same bytes and guests beside each other share the file); empty for none.
  std::filesystem::path root_disk;
  bool root_disk_writable = false;  // the image build's second stage only (qemu_args.h)
  // machine.swap type disk: this run's own sparse swap file (in run_dir, removed after the boot).
  std::filesystem::path swap_disk;
  // fragment method churn: this run's own sparse ext4 scratch disk (in run_dir, removed after).
  std::filesystem::path scratch_disk;
  std::string cmdline;            // complete
  std::filesystem::path run_dir;  // console.log and records.bin go here
  std::chrono::seconds timeout{600};
};

struct BootOutcome {
  Accel accel = Accel::kTcg;
  std::string emulator;  // "QEMU emulator version 7.2.19 (Debian ...)"
  std::string backend;   // "qemu", "libvirt"
  // libvirt: the connection URI, the host's name as libvirt reports it, libvirt's version.
  std::string hypervisor_uri, hypervisor_host, libvirt_version;
  bool timed_out = false;
  bool abnormal_exit = false;  // the emulator died of a signal or exited non-zero
  std::string exit;            // how the emulator ended, with its own last words when abnormal
  std::filesystem::path console_log;
  std::filesystem::path records_file;
  std::string command;  // reproduction command line
  double seconds = 0;
  // A pool of hosts: the hosts lost while this run was on them ("URI: why"), before the host
  // named above ran it.
  std::vector<std::string> lost_hosts;
  // The kexec backend: the lab machine the run's kernel ran on (empty otherwise). Its timings
  // are the hardware's (timing "hardware"), judged as on KVM.
  LabMachineInfo lab_machine;
};

// What a backend needs from the planner and the executor (declared per backend in the table).
struct BackendNeeds {
  bool kernel = true;    // a built kernel per (kernel, arch); false: the host's own kernel runs
  bool initrd = true;    // a per-run initrd archive; false: BootRequest's unpacked parts instead
  bool parallel = true;  // may run beside other runs (-j); false: every run goes alone
  bool icount = true;    // can run TCG guests under QEMU's -icount (machine.timing: icount)
};

// Sets out's console and record paths (in the run directory, which it creates) and removes
// what an earlier boot left there.
void prepare_boot_files(const BootRequest& req, BootOutcome& out);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Refuses a plan this backend cannot run, before any session or run exists (e.g. the host
  // backend without root, or on a host kernel lacking a knob the experiment sets).
  virtual Result<void> preflight(const Experiment& /*exp*/, const std::vector<Run>& /*runs*/) {
    return {};
  }
  // Decides the accelerator for one guest arch, once, before any run of that arch.
  virtual Result<AccelVerdict> resolve_accel(const AccelRequest& req) = 0;
  virtual Result<BootOutcome> boot(const BootRequest& req) = 0;
  // Whether the machine behind the backend is still there (a libvirt connection alive); asked
  // after a failed boot to tell a lost host from a failure of this one boot.
  virtual Result<void> reachable() { return {}; }
};

class QemuBackend : public Backend {
 public:
  QemuBackend(ProcessRunner& runner, AccelProbeOptions probe_options)
      : runner_(runner), probe_(runner, std::move(probe_options)) {}
  std::string name() const override { return "qemu"; }
  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override {
    return probe_.resolve(req);
  }
  Result<BootOutcome> boot(const BootRequest& req) override;

 private:
  Result<std::string> emulator_version(Arch arch);
  ProcessRunner& runner_;
  AccelProbe probe_;
  std::mutex mu_;  // boot() runs on several threads with `run -j`
  std::map<Arch, std::string> versions_;
};

}  // namespace foliolab
