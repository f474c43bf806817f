// The experiment model: pure data loaded from YAML, validated, expanded into Runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/arch.h"
#include "model/evidence.h"
#include "model/machine_state.h"
#include "model/metric_kind.h"
#include "model/source_loc.h"

namespace foliolab {

using KeyValues = std::vector<std::pair<std::string, std::string>>;  // ordered as written

// The host keeps at most this many reps a run: a plain `repeat: N` above it is refused at plan
// (catalog/plan_limits.h), an adaptive `max` above it by the loader.
inline constexpr int kMaxRepeat = 10000;
// An experiment's name names its sessions' folder (<results>/<name>/<stamp>): at most 200
// characters, under a file name's 255 with room for the temporary names beside it, and what a
// lab server takes (results/session_bundle.h is_plain_name). Kernel, knob set and workload
// label names make a run id with the arch and an 8-digit hash (runs/<id>/): at most 60 each,
// so an id stays within the same 200.
inline constexpr size_t kMaxNameLength = 200;
inline constexpr size_t kMaxRunPartLength = 60;

// Which guest kernel a kernel spec is built as (`kernels[].guest`).
enum class GuestKernel { kAuto, kSmall, kFull };

struct KernelSpec {
  std::string name;
  // "debian" (default: Debian's linux-source-6.12 tarball in /usr/src), or a path to a local
  // source directory or a .tar.{xz,gz,bz2} tarball (relative paths: to the YAML file's folder).
  std::string source = "debian";
  // `source: {git: PATH, ref: REV}`: `source` holds PATH. Without `ref` the checkout is built as
  // it is (a directory source that records HEAD and whether the worktree is dirty).
  bool source_git = false;
  std::string source_ref;
  std::vector<std::string> config;  // extra fragments: kernel-config/<name>.config
  KeyValues options;                // inline CONFIG_FOO: y|n|m|value, verified like fragments
  std::string patches;              // series folder under patches/, "" = none
  // `patches: {git: BASE..TIP, repo: PATH}`: the commits of a range, in order (repo defaults to
  // the git source's). Exclusive with `patches` naming a folder.
  std::string patches_range;
  std::string patches_repo;
  // Which of the series' patches apply, by index, in series order (nullopt = all). Not read from
  // YAML: `bisect --series` makes one kernel per prefix, and the series without its culprit.
  std::optional<std::vector<size_t>> patches_pick;
  // The build this kernel must be, from the cache, never rebuilt (nothing else about it is
  // looked at). Not read from YAML and not part of run ids: `gate --confirm` reruns a session's
  // runs on the kernels that session booted, though its series or git ref moved since.
  std::string build_id;
  std::string cmdline;  // extra kernel command-line parameters
  SourceLoc loc;
  SourceLoc source_loc;                // of the `source:` value (unknown when defaulted)
  std::vector<SourceLoc> config_locs;  // parallel to `config`
  SourceLoc patches_loc;
  // Archs this kernel is built and run for; empty = all of Experiment::archs. A filter only:
  // not part of run ids.
  std::vector<Arch> archs;
  std::vector<SourceLoc> arch_locs;  // parallel to `archs`
  // `guest:` which guest kernel this is built as (kernel/guest_fragments.h): unset, the small one
  // unless the experiment's runs need the full one on an arch; `full` on every arch; `small`
  // refuses an experiment that needs more (catalog/guest_kernel.h says what needs what).
  GuestKernel guest = GuestKernel::kAuto;
  SourceLoc guest_loc;
  // The archs this kernel is built as the full guest kernel for. Not read from YAML: settled from
  // the experiment (settle_guest_kernels, catalog/guest_kernel.h) before anything is built.
  std::vector<Arch> full_guest;
  // Whether this kernel carries the tracing fragment (kernel-config/tracing.config). Not read from
  // YAML: settled from the experiment's `evidence:` (settle_guest_kernels) before anything is
  // built.
  bool tracing = false;
};

struct NumaNode {
  std::vector<int> cpus;
  uint64_t memory_mb = 0;
};

// How guests are accelerated. `auto` uses KVM only when a real probe boot under KVM worked on
// this host (an openable /dev/kvm proves nothing under broken nested virtualization), else TCG.
// Not part of run ids: it is how a run is done, not what is measured (always recorded).
enum class AccelChoice { kAuto, kKvm, kTcg };
std::string_view accel_choice_name(AccelChoice c);
std::optional<AccelChoice> parse_accel_choice(std::string_view name);

// How guest time runs (`machine.timing`). wall: the guest clock follows the host's (timings under
// TCG depend on the host's speed and load). icount: QEMU's -icount, the guest clock advances with
// the instructions executed, so timings measure the kernel's path length (TCG only). Like accel,
// how runs are done, not part of run ids (recorded as provenance.boot.timing).
enum class TimingMode { kWall, kIcount };
std::string_view timing_mode_name(TimingMode t);
std::optional<TimingMode> parse_timing_mode(std::string_view name);

struct MachineSpec {
  AccelChoice accel = AccelChoice::kAuto;
  TimingMode timing = TimingMode::kWall;
  SourceLoc timing_loc;  // of `timing:` (unset when it was not written)
  // Which backend runs the guests (guest/backend_table.h): "qemu", "host", "libvirt". Like accel,
  // how runs are done, not part of run ids (recorded as provenance.boot.backend).
  std::string backend = "qemu";
  SourceLoc backend_loc;
  std::string connect;  // libvirt: the connection URI ("" = qemu:///system)
  SourceLoc connect_loc;
  int cpus = 1;
  uint64_t memory_mb = 1024;
  std::vector<NumaNode> numa;                   // empty: no NUMA topology given
  std::vector<std::vector<int>> numa_distance;  // [from][to], empty = QEMU default
  SourceLoc memory_loc;  // of `memory:` (or of `numa:` when only the nodes give it)
  // `image: <recipe>`: the guest's root is the Debian root filesystem images/<recipe>.yaml builds
  // (image/rootfs_builder.h), a virtio-blk disk the agent mounts; "" = the initramfs alone.
  std::string image;
  SourceLoc image_loc;
  SwapSpec swap;    // `swap:` (model/machine_state.h)
  ZswapSpec zswap;  // `zswap:`
};

struct KnobSet {
  std::string name;
  KeyValues knobs;  // path relative to /sys/kernel/mm/transparent_hugepage/ -> value
  std::vector<SourceLoc> knob_locs;  // parallel to `knobs` (of each value)
  KeyValues sysctls;                 // path relative to /proc/sys/ -> value
  std::string cmdline;               // extra kernel command-line parameters for this knob set
  // `prepare:` steps of this knob set alone, after the experiment's own: one experiment can
  // then compare a fresh and a fragmented guest run for run.
  std::vector<PrepareStep> prepare;
  SourceLoc loc;
};

struct WorkloadSpec {
  std::string name;     // executable /workloads/<name> in the guest
  std::string label;    // display name; defaults to name
  KeyValues params;     // passed as key=value
  MetricDecls metrics;  // `metrics:` declarations (unit, better, kind) of a custom workload
  // `metrics: {name: 'regex'}` (or `{name: {pattern: ...}}`): a custom workload with
  // `output: regex` reads each metric from the pattern's one capture group.
  KeyValues metric_patterns;
  // `metrics: {name: {pattern: ..., aggregate: sum}}`: how the captures of all matching lines
  // combine (first, last, sum, min, max, count) or stay a distribution (`distribution`); a
  // pattern not listed here takes the last.
  KeyValues metric_aggregates;
  // `custom` only (their canonical text is also in `params`, so run ids see them):
  // params.source as a list of C files (a single `source: a.c` gives one entry),
  std::vector<std::string> sources;
  // params.build: a command run on the host in a copy of `dir`, making `output` (both relative
  // to the experiment file's directory; `output` to `dir`),
  struct Build {
    std::vector<std::string> command;
    std::string dir, output;
    SourceLoc loc;
  } build;
  // params.setup: commands run in the guest before the measured repetitions.
  std::vector<std::vector<std::string>> setup;
  // `primary: true` declarations: timings adaptive repetitions watch (catalog/repeat_plan.h).
  std::vector<std::string> primary_metrics;
  // Runs alone (`run -j N` starts no other guest beside it): for timings that parallel guests
  // would disturb. How a run is done, not what it measures: not part of run ids.
  bool exclusive = false;
  SourceLoc loc;
  SourceLoc name_loc;
  std::vector<SourceLoc> param_key_locs, param_locs;  // parallel to `params`
  std::vector<SourceLoc> pattern_locs;                // parallel to `metric_patterns`
};

// A partial selection of runs by name (`runs:`, `ratio_to:` and `exclude:` entries). An empty
// field matches every run.
struct RunSelector {
  std::string kernel;  // KernelSpec::name
  std::optional<Arch> arch;
  std::string knobs;                                        // KnobSet::name
  std::string workload;                                     // WorkloadSpec::label
  SourceLoc loc;                                            // of the selection map
  SourceLoc kernel_loc, arch_loc, knobs_loc, workload_loc;  // of each value given
  bool empty() const { return kernel.empty() && !arch && knobs.empty() && workload.empty(); }
};

enum class Statistic { kMean, kMin, kMax, kMedian };
enum class CompareOp { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kApprox };

// A claim checked against a session's results (`expect:` item); see analysis/expectations.h.
struct Expectation {
  std::string name;  // as written, or generated from the fields
  RunSelector runs;
  std::string metric;  // workload metric ("faults") or counter delta ("vmstat.thp_fault_alloc")
  SourceLoc metric_loc;
  Statistic stat = Statistic::kMean;
  // Divide by the same metric of the run equal to the selected one except for the fields given.
  std::optional<RunSelector> ratio_to;
  CompareOp op = CompareOp::kEqual;
  double value = 0;
  double tolerance = 0;  // relative; kApprox only: |x - value| <= tolerance * |value|
  SourceLoc loc;
};

// Which timings a gate rule judges when they were measured under TCG (`timings:`): none
// (false, the default), those measured as instruction-time under icount (`icount`:
// reproducible, independent of the host's load), or all of them (true).
enum class GateTimings { kNone, kIcount, kAll };

// A `gate:` rule: how much a metric may regress against a baseline session before
// `foliolab gate` fails (analysis/gate.h).
struct GateRule {
  std::string name;  // as written, or generated from the fields
  RunSelector runs;  // which variants; empty = every variant that has the metric
  std::string metric;
  SourceLoc metric_loc;
  // Exactly one of: the largest allowed relative change in the worse direction (0.05 = 5 %),
  // or `equal: true` (any change of the metric fails, whatever its direction).
  std::optional<double> max_regression;
  bool equal = false;
  std::optional<Better> better;              // overrides the metric's own direction
  GateTimings timings = GateTimings::kNone;  // TCG timings judged (host and KVM ones always)
  SourceLoc loc;
};

// `repeat: {min: 3, max: 30, ci: 2%}`: after each rep from the minimum (Experiment::repeat) on,
// the run stops once the 95 % CI half-width of the mean of every watched timing metric
// (catalog/repeat_plan.h) is within `ci` of |mean|, or at `max` reps.
struct AdaptiveRepeat {
  int max = 30;
  double ci = 0.02;  // relative half-width, in (0, 1)
  SourceLoc max_loc;
};

struct Experiment {
  std::string file;  // path of the YAML file it came from, as given (messages name it so)
  // The absolute folder of that file, set once by the loader: every relative path the experiment
  // names (kernel sources, patch repositories, custom sources, build dirs, programs) resolves
  // against it, so no later step depends on the working directory of foliolab or of a child.
  std::string dir;
  // The experiment's project (model/project.h), set by the loader: the nearest folder from `dir`
  // up holding foliolab.yaml, else `dir`. Series, fragments and recipes are looked up there
  // first, then in foliolab's data.
  std::string project;
  std::string name;
  std::string description;
  std::vector<KernelSpec> kernels;
  std::vector<Arch> archs;
  MachineSpec machine;
  std::vector<KnobSet> knob_sets;
  std::vector<WorkloadSpec> workloads;
  int repeat = 3;                          // reps per run; with `adaptive`, the minimum
  std::optional<AdaptiveRepeat> adaptive;  // `repeat:` as a map, or `run --repeat-until-ci`
  int warmup = 0;       // `warmup:` reps run first in each boot: recorded, in no statistic
  int timeout_s = 600;  // per run (one guest boot), host wall-clock
  SourceLoc name_loc, repeat_loc, timeout_loc;
  bool exclusive = false;            // every run runs alone (see WorkloadSpec::exclusive)
  std::vector<SourceLoc> arch_locs;  // parallel to `archs`
  // Runs matching all fields given in any entry are dropped by expand() (not part of run ids).
  std::vector<RunSelector> excludes;
  std::vector<Expectation> expectations;
  std::vector<GateRule> gate_rules;
  // `thresholds:` (model/metric_kind.h): how compare, report, gate and bisect judge these counts.
  // How results are judged, not what is measured: not part of run ids.
  ThresholdRules thresholds;
  MachineState state;  // `prepare:`, `cgroup:`, `monitor:` (model/machine_state.h)
  // `evidence:` (model/evidence.h): what the guest counts during each rep. Observes, like the
  // monitor: not part of run ids (its kernel's build id says the kernel has tracing).
  EvidenceSpec evidence;
};

// One guest boot: kernel x arch x knob set x workload; runs `repeat` repetitions inside.
struct Run {
  std::string id;  // stable: same experiment content -> same id (slug + content hash)
  size_t kernel = 0;
  Arch arch = Arch::kX86_64;
  size_t knob_set = 0;
  size_t workload = 0;
};

// The prepare steps of a run: the experiment's, then its knob set's.
std::vector<PrepareStep> run_prepare_steps(const Experiment& exp, const Run& run);
// Whether any run of the experiment prepares its guest (a knob set's steps count).
bool any_prepare_steps(const Experiment& exp);

// True when every field `sel` gives equals the run's.
bool selector_matches(const RunSelector& sel, const Experiment& exp, const Run& run);

// "knobs=64K mTHP arch=arm64" (fields given, in the order kernel arch knobs workload), or
// "all runs".
std::string selector_text(const RunSelector& sel);

std::string_view statistic_name(Statistic stat);
std::string_view compare_op_text(CompareOp op);  // "<", "<=", ">", ">=", "==", "approx"

}  // namespace foliolab
