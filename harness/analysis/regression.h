// A regression a maintainer can act on (issue 57), as data: the one change a gate or a bisection
// found, the cell and machine it was measured on, and every row of the cell's comparison that
// moved past its threshold ("also impacts"), ranked by size, the kernel evidence apart. Built
// from one comparison group whose first variant is the parent (or the gate's baseline) and whose
// second is the culprit (or the candidate); after `foliolab try`, more columns follow (the
// culprit with a fix applied), each judged against the parent: fixed, partly fixed, not fixed.
// report/regression.h writes it as text (a mail at 100 columns), Markdown and JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/gate.h"
#include "analysis/verdict.h"
#include "results/run_record.h"

namespace foliolab {

inline constexpr int kRegressionSchema = 1;  // of report.json

struct RegressionColumn {
  std::string label;     // "parent", "culprit", "culprit+fix"
  std::string build_id;  // the kernel's build id ("" when unknown)
};

struct RegressionRow {
  std::string metric;
  bool evidence = false;           // kernel evidence (MetricRow::evidence: analysis/evidence.h)
  std::vector<SampleStats> stats;  // per column
  std::vector<std::optional<Delta>> deltas;  // per column, against column 0; [0] empty
};

enum class FixVerdict { kFixed, kPartlyFixed, kNotFixed };
std::string_view fix_verdict_name(FixVerdict v);  // "fixed", "partly fixed", "not fixed"

// Where the change was measured: the comparison group's identity and its first run's record.
struct RegressionCell {
  std::string kernel, arch, knobs, workload;
  KeyValues params, knobs_set;
};

struct RegressionMachine {
  std::string backend, accel, timing, emulator, host_cpu;
  int cpus = 0;
  uint64_t memory_mb = 0;
};

struct RegressionReport {
  std::string metric;   // the headline metric
  std::string origin;   // "gate of nightly/B against nightly/A", "bisection results/…/bisect-…"
  std::string culprit;  // "patch 5 of 7 (subject)"; "" when not bisected
  RegressionCell cell;
  RegressionMachine machine;
  std::vector<RegressionColumn> columns;  // [0] the parent (or the gate's baseline)
  // Rows past their thresholds, the headline metric first, then the others ranked by the size of
  // their change in the culprit's column (|log ratio|, a zero baseline last).
  std::vector<RegressionRow> moved;
  size_t unchanged = 0;                   // rows compared that did not move
  std::vector<std::string> also_fails;    // the other gate cases of the same change
  std::vector<FixVerdict> fixes;          // per column after column 1 (`foliolab try`)
  std::vector<std::string> config_diff;   // "CONFIG_X: y → n" (parent → culprit)
  std::string reproduce_dir, reproduce;   // the folder written beside it; the command
  const RegressionRow* headline() const;  // moved[0] when it is the headline metric
};

// The report of one comparison group: its variants become the columns (labelled `labels`, as
// many as the group's variants), its rows that moved in any column the report's rows. `first`
// is a record of the group's runs (the cell's parameters and the machine).
RegressionReport regression_of(const ComparisonGroup& g, const std::string& metric,
                               const std::vector<std::string>& labels, const RunRecord& first);

// The columns after column 1 on the headline metric: fixed when the column no longer moves in
// the culprit's direction against the parent; partly fixed when it does by at most half the
// culprit's change (log scale); else not fixed.
void judge_fixes(RegressionReport& r);

// Failing gate cases grouped by the change they share, so one regression is one report: the
// same two kernels (build ids of baseline and candidate) and the same kind of metric (counts or
// timings). Each group's cases, the largest change first (indexes into report.cases).
std::vector<std::vector<size_t>> group_gate_failures(const GateReport& report);

}  // namespace foliolab
