// The key tables of experiment files. Docs are what an editor shows beside a key; the manual
// (docs/experiments.md) says more.
#include "model/file_keys.h"

#include <string>
#include <vector>

#include "model/arch.h"
#include "model/evidence.h"
#include "model/experiment.h"
#include "model/machine_state.h"

namespace foliolab::file_keys {
namespace {

using T = ValueType;

// A name that becomes a folder or file name: not '.' or '..', at most 200 characters
// (kMaxNameLength); a kernel's name, a knob set's and a label at most 60 (kMaxRunPartLength).
constexpr const char* kNamePattern = "^(?!\\.\\.?$)[A-Za-z0-9._-]{1,200}$";
constexpr const char* kKernelNamePattern = "^(?!\\.\\.?$)[A-Za-z0-9._+-]{1,60}$";
constexpr const char* kRunPartPattern = "^[^\\t\\n\\r]{1,60}$";
constexpr const char* kMetricNamePattern = "^[A-Za-z0-9_.-]+$";
// util/text.h is_relative_path: [A-Za-z0-9_/.-], no leading '/', no empty, '.' or '..' part.
constexpr const char* kRelativePathPattern =
    "^(?!(.*/)?\\.\\.?(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$";
// model/evidence.h: is_trace_word, is_function_name; a tracepoint is SYSTEM:EVENT or SYSTEM:*.
constexpr const char* kWordPattern = "^[A-Za-z0-9_]+$";
constexpr const char* kFunctionPattern = "^[A-Za-z0-9_][A-Za-z0-9_.]*$";
constexpr const char* kEventPattern = "^[A-Za-z0-9_]+:([A-Za-z0-9_]+|\\*)$";

T arch_list(const std::string& doc, size_t min_items) {
  return T::list(doc, T::choice("an arch", arch_spellings()), min_items);
}

// A command: [program, arg, ...] or "program arg ..." (split on blanks, no shell).
T argv(const std::string& doc) {
  return T::one_of(doc, {T::string("program and arguments, split on blanks"),
                         T::list("program and arguments", T::string("an argument"), 1)});
}

T better() { return T::choice("which direction is better", {"higher", "lower", "none"}); }

T prepare_steps(const std::string& doc) { return T::list(doc, prepare_step(), 1); }

}  // namespace

const ValueType& experiment() {
  static const T t = T::map(
      "a foliolab experiment: kernels x archs x knob sets x workloads, each run repeated",
      {
          required_key("name", T::string("the experiment's name", kNamePattern)),
          key("description", T::text("what the experiment asks")),
          required_key("kernels", T::list("the kernels to build and boot", kernel(), 1)),
          required_key("archs", arch_list("the guest archs", 1)),
          key("machine", machine()),
          required_key("knobs", T::dict("knob sets by name: THP sysfs paths, sysctl, cmdline",
                                        knob_set(), kRunPartPattern)
                                    .with_key_count(1)),
          required_key("workloads", T::list("the workloads of every run", workload(), 1)),
          key("repeat",
              T::one_of("repetitions per run: a count, or adaptive",
                        {T::integer("repetitions per run", 2, kMaxRepeat), adaptive_repeat()})),
          key("warmup", T::integer("warm-up repetitions per boot, not measured", 0, 100)),
          key("timeout", T::integer("seconds a run may take", 1)),
          key("exclude", T::list("runs of the matrix to leave out", selector())),
          key("expect", T::list("expected outcomes, checked after the runs", expectation())),
          key("gate",
              T::list("rules a candidate session is judged by against a baseline", gate_rule())),
          key("thresholds",
              T::dict("smallest differences of counts that matter, by metric or prefix*",
                      T::one_of("16 (in the metric's unit), 30% or {abs, rel}",
                                {T::number("an absolute threshold", 0),
                                 T::percent("a relative threshold"), threshold_parts()}),
                      "^[A-Za-z0-9._:=\\[\\]-]+\\*?$")),
          key("exclusive", T::boolean("run the guests one at a time")),
          key("prepare", prepare_steps("machine state steps before the first repetition")),
          key("cgroup", cgroup()),
          key("monitor", monitor()),
          key("evidence", evidence()),
      });
  return t;
}

const ValueType& kernel() {
  static const T t =
      T::map("a kernel: a source, config fragments, options, a patch series",
             {
                 required_key("name", T::string("the kernel's name", kKernelNamePattern)),
                 key("source", T::one_of("a kernel tree: debian, a path, or {git, ref}",
                                         {T::string("debian or a path"), kernel_git_source()})),
                 key("config", T::list("config fragments under kernel-config/, without .config",
                                       T::string("a fragment name", kNamePattern))),
                 key("options",
                     T::dict("Kconfig options and their values",
                             T::scalar("y, m, n, a number or a string"), "^CONFIG_[A-Z0-9_]+$")),
                 key("patches",
                     T::one_of("a patch series under patches/, or {git: BASE..TIP, repo}",
                               {T::string("a folder or mbox under patches/", kRelativePathPattern),
                                kernel_git_range()})),
                 key("cmdline", T::string("extra kernel command line")),
                 key("archs", arch_list("the archs this kernel is built for (default: all)", 1)),
                 key("guest", T::choice("the guest kernel's config", {"small", "full"})),
             });
  return t;
}

const ValueType& kernel_git_source() {
  static const T t = T::map("a git checkout", {required_key("git", T::string("the repository")),
                                               key("ref", T::string("a branch, tag or commit"))});
  return t;
}

const ValueType& kernel_git_range() {
  static const T t = T::map("the commits of a git range",
                            {required_key("git", T::string("BASE..TIP", "^[^-].*[^.]\\.\\.[^.]")),
                             key("repo", T::string("the repository (default: the source)"))});
  return t;
}

const ValueType& machine() {
  static const T t = T::map(
      "the guest machine",
      {
          key("accel", T::choice("the accelerator", {"auto", "kvm", "tcg"})),
          key("backend", T::string("where guests run: qemu, host, libvirt, ...")),
          key("connect", T::string("a libvirt connection URI (backend: libvirt) or a lab "
                                   "machine's ssh://[user@]host[:port] (backend: kexec)")),
          key("cpus", T::integer("guest CPUs", 1)),
          key("image",
              T::string("a Debian image recipe under images/, or initramfs", kNamePattern)),
          key("memory", T::size("guest memory")),
          key("numa", numa()),
          key("swap", swap()),
          key("timing", T::choice("wall clock or instruction-counted time", {"wall", "icount"})),
          key("zswap", zswap()),
      });
  return t;
}

const ValueType& numa() {
  static const T t = T::map(
      "NUMA nodes of the guest",
      {required_key("nodes", T::list("the nodes", numa_node(), 1)),
       key("distance", T::list("one row per node",
                               T::list("distances 10..255", T::integer("a distance", 10, 255))))});
  return t;
}

const ValueType& numa_node() {
  static const T t =
      T::map("a NUMA node", {required_key("cpus", T::list("its CPUs", T::integer("a CPU", 0))),
                             required_key("memory", T::size("its memory"))});
  return t;
}

const ValueType& swap() {
  static const T t =
      T::map("a swap device in the guest",
             {required_key("type", T::choice("zram or a disk", {"zram", "disk"})),
              required_key("size", T::size("the swap's size")),
              key("compressor", T::choice("zram's compressor", zram_compressors()))});
  return t;
}

const ValueType& zswap() {
  static const T t =
      T::map("a compressed cache in front of the swap",
             {required_key("enabled", T::boolean("zswap on")),
              key("compressor", T::choice("zswap's compressor", zswap_compressors()))});
  return t;
}

const ValueType& knob_set() {
  static const T t =
      T::map("a knob set: THP sysfs paths (relative to /sys/kernel/mm/transparent_hugepage/)",
             {
                 key("sysctl", T::dict("paths under /proc/sys/ and their values",
                                       T::scalar("the value"), kRelativePathPattern)),
                 key("cmdline", T::string("extra kernel command line")),
                 key("prepare", prepare_steps("steps after the top-level prepare")),
             })
          .with_extra(T::scalar("the value written to the sysfs file"), kRelativePathPattern)
          .or_null();
  return t;
}

const ValueType& workload() {
  static const T t = T::map(
      "a workload and its parameters",
      {
          required_key("name", T::string("a built-in workload or custom", "^[a-z0-9_-]+$")),
          key("label",
              T::string("the name runs and selectors use (default: name)", kRunPartPattern)),
          key("params", workload_params()),
          key("metrics", T::dict("metrics a custom program prints",
                                 T::one_of("a regex, or a declaration",
                                           {T::string("a regex for output: regex"), metric_decl()}),
                                 kMetricNamePattern)),
          key("exclusive", T::boolean("run this workload's guests one at a time")),
      });
  return t;
}

const ValueType& workload_params() {
  static const T t =
      T::map(
          "the workload's parameters (foliolab workloads NAME lists them)",
          {
              key("source",
                  T::one_of("custom: the C files to compile",
                            {T::string("a C file"), T::list("C files", T::string("a C file"), 1)})),
              key("build", custom_build()),
              key("setup",
                  T::list("custom: commands run before the first repetition", argv("a command"), 1)
                      .with_max_items(64)),
          })
          .with_extra(T::scalar("a parameter's value"), kMetricNamePattern);
  return t;
}

const ValueType& custom_build() {
  static const T t = T::map("custom: a program built in the guest's image",
                            {required_key("command", argv("the build command")),
                             required_key("dir", T::string("the folder to build in")),
                             required_key("output", T::string("the program it makes"))});
  return t;
}

const ValueType& metric_decl() {
  static const T t =
      T::map(
          "a metric's declaration",
          {
              key("unit", T::string("its unit")),
              key("better", better()),
              key("kind", T::choice("a count or a timing", {"count", "timing"})),
              key("pattern", T::string("a regex with one group (output: regex)")),
              key("regex", T::string("the same as pattern")),
              key("aggregate", T::choice("how matches combine", {"first", "last", "sum", "min",
                                                                 "max", "count", "distribution"})),
              key("primary", T::boolean("adaptive repetitions watch this timing")),
          })
          .with_rules({
              {.key = "regex",
               .excludes = {"pattern"},
               .why = "give 'pattern' or 'regex' (the same thing), not both"},
              {.key = "aggregate",
               .needs_any = {"pattern", "regex"},
               .why = "'aggregate' needs a 'pattern' (or 'regex') beside it"},
          });
  return t;
}

const ValueType& selector() {
  static const T t = T::map("runs chosen by kernel, arch, knob set or workload label",
                            {key("kernel", T::string("a kernel's name")),
                             key("arch", T::choice("an arch", arch_spellings())),
                             key("knobs", T::string("a knob set's name")),
                             key("workload", T::string("a workload's label"))});
  return t;
}

const std::vector<std::string>& comparison_keys() {
  static const std::vector<std::string> k = {"<", "<=", ">", ">=", "==", "approx"};
  return k;
}

const std::vector<std::string>& stat_names() {
  static const std::vector<std::string> k = {"mean", "min", "max", "median"};
  return k;
}

const ValueType& expectation() {
  static const T t = [] {
    const T value = T::number("the value compared with");
    // "==" before "<": a stray "=" is closer to both, and the first wins (did-you-mean).
    return T::map("an expected outcome: a metric compared with a value",
                  {key("name", T::string("what it checks (default: generated)")),
                   key("runs", selector()), required_key("metric", T::string("a metric")),
                   key("stat", T::choice("the statistic compared", stat_names())),
                   key("ratio_to", selector()), key("==", value), key("<", value), key("<=", value),
                   key(">", value), key(">=", value), key("approx", value),
                   key("tolerance", T::number("approx's relative tolerance", 0))})
        .with_exactly_one(comparison_keys())
        .with_rules({
            {.key = "approx",
             .needs = {"tolerance"},
             .why = "'approx' needs a relative 'tolerance' (e.g. tolerance: 0.1)"},
            {.key = "tolerance",
             .needs = {"approx"},
             .why = "'tolerance' applies only to 'approx'"},
        });
  }();
  return t;
}

const ValueType& gate_rule() {
  static const T t =
      T::map("a gate rule: a metric may regress by at most a percentage, or not change",
             {key("name", T::string("what it checks (default: generated)")),
              key("runs", selector()), required_key("metric", T::string("a metric")),
              key("max_regression", T::percent("the largest regression allowed")),
              key("equal", T::boolean("must not change (true)")), key("better", better()),
              key("timings", T::one_of("judge timings too: true, false or icount",
                                       {T::boolean("all timings or none"),
                                        T::choice("instruction-counted timings", {"icount"})}))})
          .with_exactly_one({"max_regression", "equal"});
  return t;
}

const ValueType& threshold_parts() {
  static const T t = T::map("an absolute and a relative threshold; the larger applies",
                            {key("abs", T::number("in the metric's unit", 0)),
                             key("rel", T::percent("of the larger mean"))})
                         .with_key_count(1);
  return t;
}

const ValueType& adaptive_repeat() {
  static const T t =
      T::map("repeat until the 95 % CI is narrow enough",
             {key("min", T::integer("repetitions at least", 2, kMaxRepeat)),
              key("max", T::integer("repetitions at most", 2, kMaxRepeat)),
              required_key("ci", T::percent("the CI's half-width as a percentage of the mean"))});
  return t;
}

const ValueType& prepare_step() {
  static const T t = T::map("one step: fragment: {...} or reclaim: SIZE",
                            {key("fragment", fragment()),
                             key("reclaim", T::size("memory to reclaim before the reps"))})
                         .with_key_count(1, 1);
  return t;
}

namespace {

// What one fragmentation method takes: plan's rules, which the schema says too.
std::vector<KeyRule> fragment_rules() {
  const std::string unusable_needs =
      "method unusable needs order: N and unusable: X, e.g. {order: 9, unusable: 0.9}";
  std::vector<KeyRule> rules = {
      {.key = "method", .value = "unusable", .needs = {"order", "unusable"}, .why = unusable_needs},
      // Without a method, order or unusable means method unusable: both then.
      {.key = "order", .needs = {"unusable"}, .why = unusable_needs},
      {.key = "unusable", .needs = {"order"}, .why = unusable_needs},
      {.key = "method",
       .value = "thpscale",
       .excludes = {"order", "unusable"},
       .why = "thpscale fragments at the PMD size; no target to give"},
      {.key = "method",
       .value = "churn",
       .excludes = {"order", "unusable", "pin", "reserve"},
       .why = "{key} is not for churn: it fragments by page cache and slab, to no target"},
  };
  for (const char* churn_only : {"size", "file_size", "passes", "background"}) {
    rules.push_back({.key = churn_only,
                     .needs_key = "method",
                     .needs_value = "churn",
                     .why = "{key} is for method churn (page-cache churn on a scratch disk)"});
  }
  return rules;
}

}  // namespace

const ValueType& fragment() {
  static const T t =
      T::map(
          "fragment free memory before the reps",
          {
              key("method", T::choice("how", {"thpscale", "unusable", "churn"})),
              key("order", T::integer("unusable: the target order", 1, 13)),
              key("unusable", T::number("unusable: the free space index to reach, in (0, 1]", 0)),
              key("seed", T::integer("the random seed", 1)),
              key("pin", T::boolean("pin the filling memory")),
              key("reserve", T::size("memory left unfilled")),
              key("size", T::size("churn: the page cache written")),
              key("file_size", T::size("churn: each file's size, 4K to 64M")),
              key("passes", T::integer("churn: passes over the files", 1, kMaxChurnPasses)),
              key("background", T::boolean("churn: keep churning during the reps")),
          })
          .with_rules(fragment_rules());
  return t;
}

const ValueType& cgroup() {
  static const T t = [] {
    std::vector<KeySpec> keys;
    for (const std::string& file : cgroup_limit_files()) {
      keys.push_back(key(
          file, T::one_of("a size, or max", {T::size("a limit"), T::choice("no limit", {"max"})})));
    }
    return T::map("a memory cgroup every repetition runs in, with these limits", keys)
        .with_key_count(1);
  }();
  return t;
}

const ValueType& monitor() {
  static const T t =
      T::map("sample counters during the reps",
             {required_key("period", T::duration("the sampling period, 10ms..60000ms")),
              key("counters",
                  T::list("vmstat.NAME, meminfo.FIELD, mthp.SIZE.STAT, memcg.KEY",
                          T::string("a counter", "^(vmstat|meminfo|mthp|memcg)\\.[^ \\t/]+$"), 1)
                      .with_max_items(kMaxMonitorCounters))});
  return t;
}

const ValueType& evidence_event() {
  static const T t = T::map(
      "a tracepoint counted by the values of one field",
      {required_key("event", T::string("SYSTEM:EVENT", kEventPattern)),
       key("by", T::string("a field of the event's record (a hist trigger's key)", kWordPattern))});
  return t;
}

const ValueType& evidence_kprobe() {
  static const T t =
      T::map("a kernel function whose calls are counted",
             {required_key("function", T::string("a kernel function", kFunctionPattern))});
  return t;
}

const ValueType& function_profile() {
  static const T t = T::map("the ftrace function profiler during each rep",
                            {required_key("top", T::integer("functions kept in the record, by hits",
                                                            1, kMaxProfileTop))});
  return t;
}

const ValueType& evidence() {
  static const T t =
      T::map(
          "what the guest measures beside the workload's metrics: kernel events for its processes "
          "during each rep, a folio census at its peak (docs/evidence.md)",
          {key("events", T::list("tracepoints: SYSTEM:EVENT, SYSTEM:*, or {event, by: FIELD}",
                                 T::one_of("a tracepoint",
                                           {T::string("SYSTEM:EVENT or SYSTEM:*", kEventPattern),
                                            evidence_event()}),
                                 1)
                             .with_max_items(kMaxEvidenceEvents)),
           key("kprobes",
               T::list("kernel functions whose calls are counted (kprobes)",
                       T::one_of("a function", {T::string("a kernel function", kFunctionPattern),
                                                evidence_kprobe()}),
                       1)
                   .with_max_items(kMaxEvidenceKprobes)),
           key("function_profile", function_profile()),
           key("census", T::boolean("a folio census of the workload's mappings at each rep's peak "
                                    "(no tracing needed)"))})
          .with_key_count(1);
  return t;
}

}  // namespace foliolab::file_keys
