// A second-long answer to "can KVM run a guest here?" before the full probe boot. An openable
// /dev/kvm proves nothing, and under broken nested virtualization the full probe (the guest
// kernel and the agent) waits its whole deadline: the kernel runs, but so slowly that it prints
// nothing in 30 s. The smoke test boots a 64 KiB firmware (kvm_smoke.S) that turns paging on,
// touches 112 MiB and exits through isa-debug-exit, once under TCG and once under KVM: KVM must
// finish within a multiple of TCG's own time on this host (a ratio, so no machine is too slow
// for it). Only when it does is the full probe worth booting. x86_64 guests on x86_64 hosts.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "util/process.h"
#include "util/result.h"

namespace foliolab {

// The firmware image (65,536 bytes) of kvm_smoke.S.
std::string kvm_smoke_firmware();

// QEMU's argv for the smoke firmware under `accel` ("kvm" or "tcg").
std::vector<std::string> kvm_smoke_argv(const std::string& qemu,
                                        const std::filesystem::path& firmware,
                                        const std::string& accel);

struct KvmSmoke {
  bool kvm_ok = false;            // the firmware reached its exit under KVM
  double tcg_seconds = 0;         // the firmware's run under TCG, QEMU start to exit
  double deadline_seconds = 0;    // what KVM was given
  ProcessResult kvm;              // the KVM run as it ended
  std::filesystem::path kvm_log;  // QEMU's stderr of the KVM run
};

struct KvmSmokeOptions {
  std::filesystem::path dir;  // the firmware and QEMU's logs go here
  std::string qemu;           // qemu-system-x86_64's path
  // KVM may take this many times TCG's time (at least min_deadline) before it is declared
  // unusable. A working KVM finishes in a small fraction of TCG's time.
  double tcg_multiple = 8;
  std::chrono::milliseconds min_deadline{2000};
  // TCG's own run: generous; it takes a third of a second here.
  std::chrono::seconds tcg_deadline{120};
};

// Runs the firmware under TCG, then under KVM. An error only when the TCG run itself fails
// (QEMU or the firmware are broken, not KVM).
Result<KvmSmoke> run_kvm_smoke(ProcessRunner& runner, const KvmSmokeOptions& opt);

}  // namespace foliolab
