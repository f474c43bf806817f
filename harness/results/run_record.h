// RunRecord: everything foliolab keeps about one run (one guest boot), typed. The runner builds
// it, results/record_codec.h stores it as runs/<run id>/run.json, and every reader (report,
// expectations, compare, gate, the index) goes through it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/repeat_rule.h"
#include "model/distribution.h"
#include "model/experiment.h"  // KeyValues, MachineSpec
#include "model/lab_machine.h"
#include "model/subtest_outcome.h"

namespace foliolab {

// What the run was: the experiment's view of it, enough to pair it with runs of other sessions.
struct RunIdentity {
  std::string run_id;
  std::string experiment;
  std::string arch;  // "x86_64", "arm64"
  struct Kernel {
    std::string name, source, patches, cmdline;
    std::vector<std::string> config;
    KeyValues options;
  } kernel;
  MachineSpec machine;
  struct Knobs {
    std::string name;
    KeyValues knobs, sysctls;
    std::string cmdline;
  } knob_set;
  struct Workload {
    std::string name, label;
    KeyValues params;
  } workload;
  int repeat = 0;
};

struct HostInfo {
  std::string hostname, cpu_model, kernel, foliolab_revision;
  int64_t cpus = 0;
};

// What the guest said about itself (the agent's hello record).
struct GuestInfo {
  std::string agent_version, release, version, machine, cmdline;
  int64_t page_size = 0, nr_cpus = 0, mem_total_kb = 0;
};

// Where the numbers came from.
struct Provenance {
  HostInfo host;
  // Kernel build; empty build_id when the run failed before a kernel existed.
  std::string kernel_build_id, kernel_version, kernel_image;
  // Source and series as built: "git /src/linux @ 1a2b3c4d5e6f (ref my-branch)"; "" in records
  // written before sources were described.
  std::string kernel_source;
  bool kernel_cache_hit = false;
  double kernel_build_seconds = 0;
  std::string image_id;
  std::vector<std::string> image_workloads;
  // machine.image: the Debian root filesystem the guest mounted (recipe name, and its image id
  // over the recipe and the package versions it got); empty for initramfs runs.
  std::string rootfs_recipe, rootfs_id;
  // The boot; empty backend when the run never booted.
  std::string backend, accel, emulator, command, emulator_exit;
  std::string accel_requested;  // auto | kvm | tcg
  // libvirt backend only: connection URI, the libvirt host's name, libvirt's version.
  std::string hypervisor_uri, hypervisor_host, libvirt_version;
  // A pool of hosts: hosts lost while they had this run ("URI: why"); it ran again elsewhere.
  std::vector<std::string> lost_hosts;
  // backend kexec only: the lab machine (record: boot.machine).
  LabMachineInfo lab_machine;
  std::string accel_reason;  // why `accel` (the probe's verdict)
  int guests_beside = 0;     // most other guests running at once during this run (`run -j`)
  double boot_seconds = 0;
  bool timings_emulated = false;  // TCG: timings are emulation timings
  // machine.timing: "wall" (host time) or "icount" (QEMU -icount: instruction-time, which does
  // not depend on the host's speed or load); "hardware" for a kexec run (the lab machine's own
  // time). "" in records written before it existed = wall.
  std::string timing = "wall";
  bool icount() const { return timing == "icount"; }
  bool has_guest = false;
  GuestInfo guest;
};

// Files beside run.json, relative to the run directory ("" = not kept).
struct Artifacts {
  std::string console_log, records, emulator_log, job;
};

struct KnobResult {
  std::string path;  // relative to /sys/kernel/mm/transparent_hugepage/
  std::string requested, readback, status, error;
};

struct Repetition {
  int rep = 0;
  int64_t wall_ns = 0, exit_status = 0, signal = 0;
  std::map<std::string, double> metrics;  // workload metrics
  std::map<std::string, int64_t> deltas;  // counter deltas around the rep (vmstat., mthp., ...)
  std::vector<SubtestOutcome> tests;      // a test-suite workload's tests (TAP), in order
  bool warmup = false;                    // a warm-up rep (`warmup:`): kept, in no statistic
  // The machine's state before and after the rep (buddy.*, unusable.*, extfrag.*, pagetype.*,
  // pageblocks.*, swap.*, zram.*, memcg.*: values, not deltas; protocol/run_report.h).
  std::map<std::string, int64_t> state_before, state_after;
  MonitorSeries monitor;  // `monitor:` samples during the rep; empty without a monitor
  // Distribution metrics (model/distribution.h): kprobe latencies, `aggregate: distribution`
  // captures; read as the scalars <name>.p50, .p90, .p99, .max and .count.
  std::map<std::string, Distribution> distributions;
};

// Who is to blame for a failed run.
enum class FailureClass {
  kNone,      // the run is ok
  kGuest,     // the guest kernel or agent: panic, hang, missing knob, damaged records
  kWorkload,  // the workload failed or reported a failure
  kHost,      // the host environment: kernel or image build, QEMU could not start
  kHarness,   // foliolab itself: inconsistent state, a file it could not write
};
std::string_view failure_class_name(FailureClass c);      // "", "guest", "workload", ...
FailureClass parse_failure_class(std::string_view name);  // unknown names: kHarness

// A workload metric, else a counter delta, else a "state.before.<key>" / "state.after.<key>"
// state value, else a distribution's "<name>.p50" (any quantile, or ".count") of one rep;
// nullopt when the rep has none of them.
std::optional<double> rep_value(const Repetition& rep, const std::string& metric);

struct RunRecord {
  int schema = 0;  // of the file it was read from (0: built in memory)
  RunIdentity id;
  Provenance provenance;
  Artifacts artifacts;
  // "ok", or how it failed: build-failed, image-failed, boot-failed, timed-out, failed.
  std::string status;
  FailureClass failure = FailureClass::kNone;
  std::string reason;                // human reason when not ok
  std::string started, finished;     // ISO 8601 UTC
  KeyValues knobs_found, knobs_set;  // THP knob state as found at boot and after setting
  std::vector<KnobResult> knob_results;
  // What the machine-state steps reached (machine.swap, zswap, cgroup, prepare:), in order.
  std::vector<PreparedStep> prepared;
  std::vector<Repetition> reps;  // in rep order, warm-up reps first
  // Why the run did as many reps as it did; nullopt in records written before issue 18 and in
  // runs that failed.
  std::optional<RepeatStop> repeat_stop;
  std::vector<std::string> guest_errors, problems;

  bool ok() const { return status == "ok"; }
  // The values of a workload metric or, failing that, a counter delta, or for
  // "state.before.<key>" / "state.after.<key>" a state value, one per repetition that has it
  // (warm-up reps left out).
  std::vector<double> samples(const std::string& metric) const;
  // Every metric and counter delta name found in any repetition, and each distribution's
  // derived names (<name>.p50, .p90, .p99, .max, .count), sorted.
  std::vector<std::string> metric_names() const;
};

}  // namespace foliolab
