// The comparison model: pure functions turn run records into numbers and verdicts; renderers
// (analysis/render_*.h) write the same model as text, Markdown, CSV, JSON, JUnit or HTML.
//
// A group is one (kernel, arch, workload, ...) identity; its variants are what differs (knob
// sets in a session report; base and candidate in `compare`). Each metric is a row with the
// statistics of every variant and, for every variant after the first, its change against the
// first with a 95 % Welch interval, an exact rank-test p-value and a verdict (the rule:
// compare_samples below; docs/comparisons.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/evidence.h"
#include "analysis/group_runs.h"
#include "analysis/machine_state.h"
#include "analysis/metric_row.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "catalog/metric_catalog.h"
#include "model/experiment.h"
#include "results/run_record.h"

namespace foliolab {

inline constexpr int kComparisonSchema = 1;  // of the JSON rendering

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
  // Kernel evidence (analysis/evidence.h): its rows ranked, histograms and the census; the
  // renderers show its rows there and not in the main table.
  EvidenceSection evidence;
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

// Counter deltas shown in comparisons: THP and fault counters (others, such as free-page
// gauges, move with everything the guest does).
bool shown_counter(const std::string& name);
bool is_counter(const std::string& name);  // vmstat., mthp., meminfo.

}  // namespace foliolab
