#include "results/finding_index.h"

namespace foliolab {

Status add_change_point(ResultIndex& index, const IndexedChangePoint& cp) {
  auto ins = index.db().prepare(
      "INSERT OR REPLACE INTO change_points(experiment, kernel, arch, knob_set, workload, metric, "
      "before_session, after_session, before_value, after_value, method, p_value) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!ins.ok()) return ins.error();
  ins->bind(1, cp.experiment).bind(2, cp.kernel).bind(3, cp.arch).bind(4, cp.knob_set);
  ins->bind(5, cp.workload).bind(6, cp.metric).bind(7, cp.before_session);
  ins->bind(8, cp.after_session).bind(9, cp.before).bind(10, cp.after).bind(11, cp.method);
  if (cp.p) {
    ins->bind(12, *cp.p);
  } else {
    ins->bind_null(12);
  }
  return ins->run();
}

Status add_known_issue_match(ResultIndex& index, const IndexedKnownIssueMatch& m) {
  auto ins = index.db().prepare(
      "INSERT OR REPLACE INTO known_issue_matches(session, issue, case_name, outcome, url, "
      "expires) VALUES(?,?,?,?,?,?)");
  if (!ins.ok()) return ins.error();
  ins->bind(1, m.session).bind(2, m.issue).bind(3, m.case_name).bind(4, m.outcome);
  return ins->bind(5, m.url).bind(6, m.expires).run();
}

}  // namespace foliolab
