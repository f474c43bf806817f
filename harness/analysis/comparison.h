// The comparison model: pure functions turn run records into numbers and verdicts; renderers
// (analysis/render_*.h) write the same model as text, Markdown, CSV, JSON, JUnit or HTML.
//
// A group is one (kernel, arch, workload, ...) identity; its variants are what differs (knob
// sets in a session report; base and candidate in `compare`). Each metric is a row with the
// statistics of every variant and, for every variant after the first, its change against the
// first with a bootstrap confidence interval, p-values and a verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.h"
#include "catalog/metric_catalog.h"
#include "model/experiment.h"
#include "results/run_record.h"

namespace foliolab {

inline constexpr int kComparisonSchema = 1;  // of the JSON rendering

enum class Verdict { kImproved, kRegressed, kChanged, kNoChange, kInconclusive };
std::string_view verdict_name(Verdict v);  // "improved", "regressed", "changed", ...

struct CompareOptions {
  double min_effect_timing = 0.02;  // smallest relative change of a timing that matters
  double min_effect_count = 0;      // counts: any resolved change is a change
  MetricDecls declared;             // custom workloads' metric declarations
  std::vector<std::string> keep;    // metrics always compared when present (gate rules)
};

struct SampleStats {
  size_t n = 0;
  double mean = kNoValue, sd = kNoValue, median = kNoValue, cv = kNoValue;
  double ci_low = kNoValue, ci_high = kNoValue;  // of the mean (Student t, 95 %)
  double min = kNoValue, max = kNoValue;
  std::vector<double> values;
};

// A variant against the group's first variant.
// Why a delta has no aggregate or no verdict. report/ words it (delta_note: "n=3/3 too small
// to resolve 2 %: need 14 reps at CV 3.1 %") and lists it among the group's warnings.
enum class DeltaNote {
  kNone,
  kFewSamples,    // fewer than kMinSamples on a side: no aggregate
  kZeroBaseline,  // baseline mean zero and no directional count change: no ratio
  kUnderpowered,  // an inconclusive timing: `reps_needed` would resolve `min_effect` at `cv`
};

struct Delta {
  double rel_change = kNoValue;                  // mean(b) / mean(a) - 1
  double ci_low = kNoValue, ci_high = kNoValue;  // 95 % bootstrap CI of the same
  double mann_whitney_p = kNoValue, welch_p = kNoValue;
  Verdict verdict = Verdict::kInconclusive;
  double min_effect = 0;
  DeltaNote note = DeltaNote::kNone;
  size_t n_base = 0, n_cand = 0;  // sample sizes
  size_t reps_needed = 0;         // kUnderpowered
  double cv = kNoValue;           // kUnderpowered: the larger CV of the two samples
};

struct MetricRow {
  std::string metric;
  MetricInfo info;
  bool emulated = false;  // a timing measured under TCG
  bool icount = false;    // emulated, and instruction-time: every run under machine.timing icount
  std::vector<SampleStats> stats;            // per variant
  std::vector<std::optional<Delta>> deltas;  // per variant; [0] is always empty
};

struct VariantInfo {
  std::string label;
  std::vector<std::string> runs;  // "<session>/<run id>" (or the run id alone)
  std::string accel;              // "tcg", "kvm", or "tcg+kvm" when pooled runs differ
  bool emulated = false;
  bool icount = false;  // every run's timings are instruction-time (provenance timing icount)
  KeyValues knobs_set;  // THP knob state after setting (of the first run)
  std::string kernel_build_id, kernel_version, emulator, guest_release;
  std::string host;  // "a", or "a+b" when pooled runs ran on several hosts
  // How the runs' reps ended (adaptive repetitions): of the one run, or pooled: kMax when any
  // went to max, the largest n and target, each metric's widest half-width. nullopt when a
  // run's record has none (older records).
  std::optional<RepeatStop> repeat_stop;
};

struct ComparisonGroup {
  std::string title;                          // "6.12-mthp-vmstat · x86_64 · fault"
  std::string kernel, arch, workload, knobs;  // the shared identity ("" when it varies)
  std::vector<VariantInfo> variants;
  std::vector<MetricRow> rows;  // workload metrics, then counter deltas that moved
  std::vector<std::string> warnings;
  bool emulated() const;
  bool icount() const;  // some variant is emulated and every emulated one is instruction-time
};

struct ComparisonModel {
  std::string kind;             // "report", "compare", "gate"
  std::string title;            // "quickstart 20261130T051430Z" or "BASE → CAND"
  std::string base, candidate;  // what was compared (sessions or selections)
  std::vector<ComparisonGroup> groups;
  std::vector<std::string> notes;  // failed runs, unpaired runs, ...
  // About the whole comparison, shown before the tables: BASE and CAND ran on different hosts
  // or accelerators, ...
  std::vector<std::string> warnings;
};

// Input of a group: the records of each variant (pooled when several).
struct VariantRuns {
  std::string label;
  std::vector<const RunRecord*> runs;
  std::string session;  // prefix of run names in VariantInfo::runs; "" for none
};
struct GroupRuns {
  std::string title, kernel, arch, workload, knobs;
  std::vector<VariantRuns> variants;
};

ComparisonGroup compare_group(const GroupRuns& input, const CompareOptions& options);

// Statistics of one sample set (n < 2: only n, values, min and max).
SampleStats sample_stats(std::vector<double> values);
// The change of b against a with its verdict.
Delta compare_samples(const MetricInfo& info, const SampleStats& a, const SampleStats& b,
                      const CompareOptions& options);

// Counter deltas shown in comparisons: THP and fault counters (others, such as free-page
// gauges, move with everything the guest does).
bool shown_counter(const std::string& name);
bool is_counter(const std::string& name);  // vmstat., mthp., meminfo.

}  // namespace foliolab
