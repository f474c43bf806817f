// Test double for a Backend. By default it plays a scripted guest (scripted_guest_boot) on a
// host without KVM (no_kvm_accel); a test replaces any step with its own function, or derives
// and overrides. It counts the boots and the accelerator requests it answers.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "backend/backend.h"
#include "util/result.h"

namespace foliolab {

class FakeBackend : public Backend {
 public:
  std::string backend_name = "fake";  // what name() says (a pool member: "libvirt")
  std::function<Result<AccelVerdict>(const AccelRequest&)> on_accel;  // default: no_kvm_accel
  std::function<Result<BootOutcome>(const BootRequest&)> on_boot;  // default: scripted_guest_boot
  std::function<Result<void>()> on_reachable;                      // default: reachable

  std::string name() const override { return backend_name; }
  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override;
  Result<BootOutcome> boot(const BootRequest& req) override;
  Result<void> reachable() override { return on_reachable ? on_reachable() : Result<void>(); }

  std::atomic<int> boots{0};
  std::atomic<int> accel_requests{0};
};

// A host without KVM: `auto` and `tcg` get TCG ("auto: fake host has no KVM"); `kvm` asks for
// the probe's images (a probe boots the real kernel and image), then fails as QEMU does.
Result<AccelVerdict> no_kvm_accel(const AccelRequest& req);

// A guest scripted by the knob set in the run's job (run_dir/job.txt): `enabled: panic` panics
// after its hello, `enabled: hang` hangs until killed (timed out), anything else runs two
// repetitions (values 100 and 110) and finishes. The guest runs build b1d0000000000001
// ("6.12.117"); the console log and the record stream go to the run directory.
Result<BootOutcome> scripted_guest_boot(const BootRequest& req);

// A guest whose `fault` workload reports `faults` minor faults in each of `reps` repetitions
// (the gate's count tests vary it between sessions); the guest runs `build_id` (the build
// FakeArtifacts gave the run's kernel).
Result<BootOutcome> count_guest_boot(const BootRequest& req, int64_t faults, int reps,
                                     const std::string& build_id = "b1d0000000000001");

}  // namespace foliolab
