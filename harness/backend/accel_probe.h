// Which accelerator a guest gets. An openable /dev/kvm proves nothing: under broken nested
// virtualization QEMU aborts at start ("failed to set MSR 0x10a") or the guest never prints. So
// KVM is used only after a real probe boot under KVM (the guest kernel and the agent's initramfs
// without a job) reached the agent's hello record. Verdicts are cached per host boot, QEMU binary
// (path, size, mtime, version) and guest arch: a reboot or a QEMU upgrade probes again.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

#include "backend/qemu_args.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct AccelVerdict {
  Accel accel = Accel::kTcg;
  std::string reason;   // one line: why this accelerator
  bool cached = false;  // the verdict came from an earlier probe
};

// The kernel and initramfs a probe boots; produced only when a probe is really needed.
struct ProbeImages {
  std::filesystem::path kernel;
  std::filesystem::path initrd;
};

struct AccelRequest {
  AccelChoice choice = AccelChoice::kAuto;
  Arch arch = Arch::kX86_64;
  std::function<Result<ProbeImages>()> images;
};

struct AccelProbeOptions {
  std::filesystem::path cache_dir;  // verdicts and the last probe's logs go to <cache_dir>/accel
  std::filesystem::path kvm_device = "/dev/kvm";
  std::filesystem::path boot_id_file = "/proc/sys/kernel/random/boot_id";
  // A KVM boot to the agent takes well under a second; this only bounds a guest that never
  // prints, which is what a broken nested KVM looks like.
  std::chrono::seconds deadline{30};
};

class AccelProbe {
 public:
  AccelProbe(ProcessRunner& runner, AccelProbeOptions options);

  // tcg: TCG, no probe. auto: KVM when the probe worked, else TCG with the reason. kvm: the same
  // probe, and an error naming the reason when KVM cannot run this guest.
  Result<AccelVerdict> resolve(const AccelRequest& req);

 private:
  Result<AccelVerdict> probe(Arch arch, const std::function<Result<ProbeImages>()>& images);
  ProcessRunner& runner_;
  AccelProbeOptions opt_;
};

// The verdict when KVM cannot serve `req` (auto or kvm) for reason `why`: TCG with the reason
// for auto, an error naming it for kvm.
Result<AccelVerdict> accel_without_kvm(const AccelRequest& req, const std::string& why);

// Why a QEMU run went wrong, in QEMU's own words: the exit description and the last lines of its
// log, folded onto one line ("killed by signal 6 (Aborted); qemu.log: ... | ...").
std::string emulator_failure(const ProcessResult& r, const std::filesystem::path& qemu_log);

}  // namespace foliolab
