// The comparison model: pure functions turn run records into numbers and verdicts; renderers
// (analysis/render_*.h) write the same model as text, Markdown, CSV, JSON, JUnit or HTML.
//
// A group is one (kernel, arch, workload, ...) identity; its variants are what differs (knob
// sets in a session report; base and candidate in `compare`). Each metric is a row with the
// statistics of every variant and, for every variant after the first, its change against the
// first with a 95 % Welch interval, an exact rank-test p-value and a verdict (the rule:
// compare_samples below; README "Statistics").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/group_runs.h"
#include "analysis/machine_state.h"
#include "analysis/stats.h"
#include "catalog/metric_catalog.h"
#include "model/experiment.h"
#include "results/run_record.h"

namespace foliolab {

inline constexpr int kComparisonSchema = 1;  // of the JSON rendering

enum class Verdict { kImproved, kRegressed, kChanged, kNoChange, kInconclusive };
std::string_view verdict_name(Verdict v);  // "improved", "regressed", "changed", ...

inline constexpr double kAlpha = 0.05;          // the largest p of a directional verdict
inline constexpr size_t kMaxAdaptiveReps = 30;  // reps per side a note may suggest

struct CompareOptions {
  double min_effect_timing = 0.02;  // smallest relative change of a timing that matters
  // Counts use their catalog threshold (MetricInfo::threshold), or the experiment's
  // `thresholds:`.
  MetricDecls declared;           // custom workloads' metric declarations
  ThresholdRules thresholds;      // the experiment's `thresholds:` entries
  std::vector<std::string> keep;  // metrics always compared when present (gate rules)
};

struct SampleStats {
  size_t n = 0;
  double mean = kNoValue, sd = kNoValue, median = kNoValue, cv = kNoValue;
  double ci_low = kNoValue, ci_high = kNoValue;  // of the mean (Student t, 95 %)
  double min = kNoValue, max = kNoValue;
  std::vector<double> values;
};

// A variant against the group's first variant.
// Why a delta has no aggregate or no verdict. report/ words it (delta_note: "n=3/3: p 0.10
// cannot reach 0.05; n>=4 (repeat: {max: 4}) would resolve 2 % at CV 1.1 %") and lists it
// among the group's warnings.
enum class DeltaNote {
  kNone,
  kFewSamples,    // fewer than kMinSamples on a side: no aggregate
  kZeroBaseline,  // baseline mean zero and no directional count change: no ratio
  kUnderpowered,  // inconclusive: `reps_needed` would resolve `min_effect` at `cv`
  kGuestsBeside,  // a timing of runs with other guests beside them, not under icount
};

// What a directional verdict rests on: the rank test and the interval, or (counts) both
// sides constant within the threshold and apart by more than it, at any n: no p-value then.
enum class VerdictBasis { kRankTest, kExact };
std::string_view basis_name(VerdictBasis b);  // "rank test", "exact"

struct Delta {
  // Timings of positive samples: gm(b) / gm(a) - 1 (geometric means); else mean(b)/mean(a) - 1.
  double rel_change = kNoValue;
  double ci_low = kNoValue, ci_high = kNoValue;  // 95 % Welch t interval of the same
  double mann_whitney_p = kNoValue, welch_p = kNoValue;
  Verdict verdict = Verdict::kInconclusive;
  VerdictBasis basis = VerdictBasis::kRankTest;
  double min_effect = 0;  // relative; counts: threshold / |mean(a)| (0 for a zero baseline)
  double threshold = 0;   // counts: the practical threshold in the metric's unit
  bool per_boot = false;  // counts: the samples are boots of fragmented guests (RunConditions)
  DeltaNote note = DeltaNote::kNone;
  size_t n_base = 0, n_cand = 0;  // sample sizes
  // kUnderpowered: reps per side that would resolve min_effect at cv (the exact test's
  // smallest p must reach kAlpha, too); > kMaxAdaptiveReps: repetition cannot resolve it.
  size_t reps_needed = 0;
  double min_p = kNoValue;  // kUnderpowered: the smallest p the exact test has at these n
  double cv = kNoValue;     // kUnderpowered: the larger CV of the two samples
};

// What the runs behind a delta were measured under.
struct RunConditions {
  bool guests_beside = false;  // a run on either side had other guests beside it (run -j)
  bool icount = false;         // every run on both sides measured instruction-time
  // A run on either side had its memory fragmented by a `prepare:` step. Each boot's layout
  // differs and the reps of one boot meet the same one, so a count's samples are the boots'
  // means (one a run) and no exact verdict is given: only the rank test's, from 4 boots a side.
  bool fragmented = false;
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
  std::vector<MonitorPlot>
      monitors;  // `monitor:` counters over each rep (analysis/machine_state.h)
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

ComparisonGroup compare_group(const GroupRuns& input, const CompareOptions& options);

// Statistics of one sample set (n < 2: only n, values, min and max).
SampleStats sample_stats(std::vector<double> values);
// The change of b against a with its verdict: the one rule of compare, report, gate and
// history. Timings: directional when the exact two-sided Mann-Whitney p <= kAlpha, the Welch
// interval excludes 0, |change| > min effect and the estimate and the rank statistic agree in
// sign; "no change" when the interval lies within ± min effect or the change is resolved and
// smaller; else inconclusive (kUnderpowered), and always inconclusive (kGuestsBeside) when
// `cond` has guests beside without icount. Counts: a difference of means within the
// threshold is "no change"; both sides constant within it and apart by more is a change at
// any n (kExact); else the timing rule with the threshold as the minimum effect. With
// `cond.fragmented` (the samples are boots' means) there is no exact verdict.
Delta compare_samples(const MetricInfo& info, const SampleStats& a, const SampleStats& b,
                      const CompareOptions& options, const RunConditions& cond = {});

// The rule's "resolved": the rank test's p <= alpha, `ci` (of b against a) excludes 0, and its
// estimate and the rank statistic agree in sign. Also the sequential test of bisect
// (analysis/sequential_class.h), at its per-look alpha.
bool change_resolved(const Interval& ci, const RankTest& rt, double alpha);

// Counter deltas shown in comparisons: THP and fault counters (others, such as free-page
// gauges, move with everything the guest does).
bool shown_counter(const std::string& name);
bool is_counter(const std::string& name);  // vmstat., mthp., meminfo.

}  // namespace foliolab
