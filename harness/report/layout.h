// Models -> cell texts and format-neutral documents, shared by the text and Markdown renderers
// (and the gate messages every gate format prints). All number formatting goes through
// report/number_format; the analysis models carry numbers only.
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/expectations.h"
#include "analysis/gate.h"
#include "analysis/history.h"
#include "analysis/session_report.h"
#include "analysis/subtest_results.h"
#include "report/document.h"

namespace foliolab {

// Compact (text): metrics as rows, variants as columns (medians), change columns against the
// first variant; full (Markdown): one row per metric and variant with every statistic.
Document layout_comparison(const ComparisonModel& model, bool full);
// The verdict line and the cases (all of them when `full`, else those that did not pass)
// before the comparison.
Document layout_gate(const GateReport& report, bool full);
Document layout_history(const HistoryModel& model);

// The history's change points: the rule's line ("change points: 2 in 1 of 3 series (…)"), a
// table's header and a change point's cells (last before, first after, before, after,
// sessions, change, p).
std::string change_point_summary(const HistoryModel& model);
std::vector<std::string> change_point_header();
std::vector<std::string> change_point_cells(const HistorySeries& series, const ChangePoint& c);

// "gate: PASSED — 3 passed, 0 failed, 1 skipped (base → cand)".
std::string gate_summary(const GateReport& report);
// "regressed: 1025 → 16.4k (+1499 %), allowed 0 %".
// Flaky, infra and known cases get the rerun's or the known issue's words after it.
std::string gate_message(const GateCase& c);
// A line per flaky, infra or known case and per known issue that suppressed nothing (fixed?,
// expired): what the Markdown and text reports print under the verdict.
std::vector<std::string> gate_note_lines(const GateReport& report);

// "tests:" then per run a count line and one line per failed, mixed or skipped test (passed
// tests are counted, not listed: every test is in run.json's reps[].tests).
std::vector<std::string> test_result_lines(const std::vector<RunSubtests>& runs);
// One line per check of an expectation (ExpectationCheck says which forms).
std::vector<std::string> expectation_details(const ExpectationResult& result);
// The tests, expectations, failures, hosts and moved runs of a session report, as the lines
// that follow its tables.
std::vector<std::string> session_extra_lines(const SessionReport& report);

// Shared cell texts.
std::string metric_label(const MetricRow& row);   // "sys_s†" for an emulated timing
std::string stats_mean_sd(const SampleStats& s);  // "1,025 ± 0.5"
std::string delta_text(const Delta& d);           // "-93.7 % [-93.8 %, -93.6 %]"
std::string ci_text(const Delta& d);              // "-93.8 % … -93.6 %", "n/a"
std::string delta_note(const Delta& d);           // "baseline mean is zero: no ratio"; "" for none
// The p column: "exact" for a count whose sides are constant and apart (no p-value applies).
std::string p_cell(const Delta& d, double p);
// The group's warnings, then "<metrics>: <note>", one line per distinct metric note.
std::vector<std::string> group_warnings(const ComparisonGroup& g);

}  // namespace foliolab
