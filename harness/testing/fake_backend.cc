#include "testing/fake_backend.h"

#include <fmt/format.h>

#include "testing/stream_builder.h"
#include "util/fs.h"

namespace foliolab {

Result<AccelVerdict> FakeBackend::resolve_accel(const AccelRequest& req) {
  ++accel_requests;
  return on_accel ? on_accel(req) : no_kvm_accel(req);
}

Result<BootOutcome> FakeBackend::boot(const BootRequest& req) {
  ++boots;
  return on_boot ? on_boot(req) : scripted_guest_boot(req);
}

Result<AccelVerdict> no_kvm_accel(const AccelRequest& req) {
  if (req.choice == AccelChoice::kKvm) {
    auto images = req.images();
    if (!images.ok()) return images.error();
    return make_error(
        "accel kvm was requested, but QEMU with -accel kvm killed by signal 6 (Aborted)");
  }
  return AccelVerdict{Accel::kTcg, "auto: fake host has no KVM"};
}

Result<BootOutcome> scripted_guest_boot(const BootRequest& req) {
  BootOutcome out;
  out.backend = "fake";
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  auto job = read_file(req.run_dir / "job.txt");
  if (!job.ok()) return job.error();
  StreamBuilder b;
  b.with_version("#1 SMP PREEMPT_DYNAMIC foliolab-b1d0000000000001");
  std::string console = "Linux version 6.12.117\n";
  if (job->find("knob enabled panic") != std::string::npos) {
    b.hello();
    console += "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b\n";
  } else if (job->find("knob enabled hang") != std::string::npos) {
    b.hello();
    out.timed_out = true;
    console += "rcu: INFO: rcu_sched self-detected stall on CPU\n";
  } else {
    b.prologue().rep(0, 100).rep(1, 110).done();
  }
  FL_TRY(write_file_atomic(out.records_file, b.bytes()));
  FL_TRY(write_file_atomic(out.console_log, console));
  return out;
}

Result<BootOutcome> count_guest_boot(const BootRequest& req, int64_t faults, int reps,
                                     const std::string& build_id) {
  BootOutcome out{.backend = "fake"};
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  StreamBuilder b;
  b.with_version("#1 SMP PREEMPT_DYNAMIC foliolab-" + build_id).prologue();
  for (int rep = 0; rep < reps; ++rep) {
    b.counters(rep, "before", 1000, 10).workload(rep);
    b.out(fmt::format("{{\"pages\":16384,\"faults\":{}}}\nFOLIOLAB-WORKLOAD-OK\n", faults));
    b.counters(rep, "after", 1000 + faults, 10);
  }
  FL_TRY(write_file_atomic(out.records_file, b.done().bytes()));
  FL_TRY(write_file_atomic(out.console_log, "Linux version 6.12.117\n"));
  return out;
}

}  // namespace foliolab
