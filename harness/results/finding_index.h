// Change points over history (issue 19, item 3), the gate's known-issue matches (item 4) in
// the index (schema 5) and the gate's cases (schema 7). Sessions are named by the key of
// sessions.path (<experiment>/<stamp>), so SQL joins either to its runs.
// - Known-issue matches come from each candidate session's gate.json, the file that stays their
//   truth: `gate` indexes its own, `index rebuild` restores every one (write_gate_files_under).
// - Change points are what `history M --change-points` found, recorded as it prints them
//   (replacing that metric's earlier ones for the series it looked at); they are derived from
//   the run files, so `index rebuild` leaves the table to be recomputed (cli: the metrics it
//   held, each series' change points found again with the default rule).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/index.h"
#include "results/sql.h"
#include "util/result.h"

namespace foliolab {

struct IndexedChangePoint {
  // The series: one per (experiment, kernel, arch, knob set, workload, metric).
  std::string experiment, kernel, arch, knob_set, workload, metric;
  std::string before_session, after_session;  // the sessions on both sides of the change
  double before = 0, after = 0;               // the segments' means
  std::string method;                         // how it was found: "count step", "mean shift"
  std::optional<double> p;                    // a timing's split p-value
};

// Adds a change point, replacing the one of the same series at the same after_session.
Result<void> add_change_point(ResultIndex& index, const IndexedChangePoint& cp);
// Forgets the series' change points of `metric` (before its current ones are added).
Result<void> clear_change_points(ResultIndex& index, const IndexedChangePoint& series);
// The metrics change points are recorded for.
Result<std::vector<std::string>> change_point_metrics(ResultIndex& index);

struct IndexedKnownIssueMatch {
  std::string session;    // the candidate session the gate judged
  std::string issue;      // the known-issues file's id
  std::string case_name;  // the gate's case (rule · group); "" for an issue that matched none
  std::string outcome;    // what the gate made of it: "known", "fixed?", "expired"
  std::string url, expires;
};

// Adds a match, replacing the one of the same session, issue and case.
Result<void> add_known_issue_match(ResultIndex& index, const IndexedKnownIssueMatch& m);

// One case of a gate (schema 7): the verdict on a metric of a group of the candidate session,
// with the group's identity ("" where it varies) so that a history's point can find it.
struct IndexedGateCase {
  std::string session, baseline;  // <experiment>/<stamp> each
  std::string rule, group, metric;
  std::string kernel, arch, knobs, workload;
  std::string outcome;               // gate_outcome_name: pass, FAIL, flaky, INFRA, known, skip
  std::optional<double> rel_change;  // candidate against baseline
};

// The known-issue matches and the cases of <root>/<session>/gate.json (session:
// <experiment>/<stamp>), replacing the session's earlier ones; none when the session has no
// gate.json.
Result<void> index_gate_file(SqlDb& db, const std::filesystem::path& root,
                             const std::string& session);
// The same from a gate.json's text (a lab server's push); `where` names it in messages.
Result<void> index_gate_report(SqlDb& db, const std::string& session, std::string_view text,
                               std::string_view where);
// Forgets the session's known-issue matches and gate cases.
Result<void> forget_gate_report(SqlDb& db, const std::string& session);
// Every gate case of `metric`, by session.
Result<std::vector<IndexedGateCase>> gate_cases_of(ResultIndex& index, const std::string& metric);
// Every <root>/<experiment>/<stamp>/gate.json, after the table is emptied; how many files.
Result<int> write_gate_files_under(SqlDb& db, const std::filesystem::path& root,
                                   const std::function<void(const std::string&)>& warn);

}  // namespace foliolab
