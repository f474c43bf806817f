// Change points over history (issue 19, item 3) and the gate's known-issue matches (item 4) in
// the index (schema 5): the tables and a minimal insert API, nothing more yet. Sessions are named
// by the key of sessions.path (<experiment>/<stamp>), so SQL joins either to its runs. Neither
// is restored by `index rebuild` (which leaves these tables as they are): the files they will
// come from, history's change points and the gate's gate.json, do not exist in this tree yet.
#pragma once

#include <optional>
#include <string>

#include "results/index.h"
#include "util/result.h"

namespace foliolab {

struct IndexedChangePoint {
  // The series: one per (experiment, kernel, arch, knob set, workload, metric).
  std::string experiment, kernel, arch, knob_set, workload, metric;
  std::string before_session, after_session;  // the sessions on both sides of the change
  double before = 0, after = 0;               // the segments' means
  std::string method;                         // how it was found: "count step", "t-test split"
  std::optional<double> p;                    // a timing's split p-value
};

// Adds a change point, replacing the one of the same series at the same after_session.
Status add_change_point(ResultIndex& index, const IndexedChangePoint& cp);

struct IndexedKnownIssueMatch {
  std::string session;    // the candidate session the gate judged
  std::string issue;      // the known-issues file's id
  std::string case_name;  // the gate's case (rule × run)
  std::string outcome;    // what the gate made of it: "known", "fixed?", "expired"
  std::string url, expires;
};

// Adds a match, replacing the one of the same session, issue and case.
Status add_known_issue_match(ResultIndex& index, const IndexedKnownIssueMatch& m);

}  // namespace foliolab
