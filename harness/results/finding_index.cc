#include "results/finding_index.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

Result<void> add_match(SqlDb& db, const IndexedKnownIssueMatch& m) {
  auto ins = db.prepare(
      "INSERT INTO known_issue_matches(session, issue, case_name, outcome, url, expires) "
      "VALUES(?,?,?,?,?,?) ON CONFLICT(session, issue, case_name) DO UPDATE SET "
      "outcome = excluded.outcome, url = excluded.url, expires = excluded.expires");
  if (!ins.ok()) return ins.error();
  ins->bind(1, m.session).bind(2, m.issue).bind(3, m.case_name).bind(4, m.outcome);
  return ins->bind(5, m.url).bind(6, m.expires).run();
}

std::string text_of(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

IndexedGateCase gate_case_of(const std::string& session, const std::string& baseline,
                             const nlohmann::json& c) {
  IndexedGateCase g{.session = session, .baseline = baseline};
  for (auto [key, field] : {std::pair{"rule", &g.rule},
                            {"group", &g.group},
                            {"metric", &g.metric},
                            {"kernel", &g.kernel},
                            {"arch", &g.arch},
                            {"knobs", &g.knobs},
                            {"workload", &g.workload},
                            {"outcome", &g.outcome}}) {
    *field = text_of(c, key);
  }
  if (c.contains("rel_change") && c["rel_change"].is_number()) {
    g.rel_change = c["rel_change"].get<double>();
  }
  return g;
}

Result<void> add_gate_case(SqlDb& db, const IndexedGateCase& c) {
  auto ins = db.prepare(
      "INSERT INTO gate_cases(session, baseline, rule, grp, metric, kernel, arch, knobs, "
      "workload, outcome, rel_change) VALUES(?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(session, rule, grp, metric) DO UPDATE SET outcome = excluded.outcome, "
      "rel_change = excluded.rel_change, baseline = excluded.baseline");
  if (!ins.ok()) return ins.error();
  ins->bind(1, c.session).bind(2, c.baseline).bind(3, c.rule).bind(4, c.group);
  ins->bind(5, c.metric).bind(6, c.kernel).bind(7, c.arch).bind(8, c.knobs);
  ins->bind(9, c.workload).bind(10, c.outcome);
  if (c.rel_change) {
    ins->bind(11, *c.rel_change);
  } else {
    ins->bind_null(11);
  }
  return ins->run();
}

}  // namespace

Result<void> add_change_point(ResultIndex& index, const IndexedChangePoint& cp) {
  auto ins = index.db().prepare(
      "INSERT INTO change_points(experiment, kernel, arch, knob_set, workload, metric, "
      "before_session, after_session, before_value, after_value, method, p_value) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(experiment, kernel, arch, knob_set, workload, metric, after_session) "
      "DO UPDATE SET before_session = excluded.before_session, "
      "before_value = excluded.before_value, after_value = excluded.after_value, "
      "method = excluded.method, p_value = excluded.p_value");
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

Result<void> clear_change_points(ResultIndex& index, const IndexedChangePoint& s) {
  auto del = index.db().prepare(
      "DELETE FROM change_points WHERE experiment = ? AND kernel = ? AND arch = ? AND "
      "knob_set = ? AND workload = ? AND metric = ?");
  if (!del.ok()) return del.error();
  del->bind(1, s.experiment).bind(2, s.kernel).bind(3, s.arch).bind(4, s.knob_set);
  return del->bind(5, s.workload).bind(6, s.metric).run();
}

Result<std::vector<std::string>> change_point_metrics(ResultIndex& index) {
  auto q = index.db().prepare("SELECT DISTINCT metric FROM change_points ORDER BY metric");
  if (!q.ok()) return q.error();
  std::vector<std::string> out;
  for (;;) {
    auto row = q->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(q->column_text(0));
  }
  return out;
}

Result<void> add_known_issue_match(ResultIndex& index, const IndexedKnownIssueMatch& m) {
  return add_match(index.db(), m);
}

Result<void> index_gate_file(SqlDb& db, const fs::path& root, const std::string& session) {
  const fs::path file = root / session / "gate.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return forget_gate_report(db, session);
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  return index_gate_report(db, session, *text, file.string());
}

Result<void> forget_gate_report(SqlDb& db, const std::string& session) {
  for (const char* table : {"known_issue_matches", "gate_cases"}) {
    auto del = db.prepare(fmt::format("DELETE FROM {} WHERE session = ?", table));
    if (!del.ok()) return del.error();
    FL_TRY(del->bind(1, session).run());
  }
  return {};
}

Result<void> index_gate_report(SqlDb& db, const std::string& session, std::string_view text,
                               std::string_view where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array()) {
    return make_error(fmt::format("{}: not a gate.json (no cases)", where));
  }
  FL_TRY(forget_gate_report(db, session));
  for (const auto& c : j["cases"]) {
    if (!c.is_object()) return make_error(fmt::format("{}: a case is not an object", where));
    FL_TRY(add_gate_case(db, gate_case_of(session, text_of(j, "baseline"), c)));
    if (!c.contains("known_issue") || !c["known_issue"].is_object()) continue;
    const auto& k = c["known_issue"];
    FL_TRY(add_match(db, {.session = session,
                          .issue = text_of(k, "id"),
                          .case_name = text_of(c, "rule") + " · " + text_of(c, "group"),
                          .outcome = text_of(c, "outcome"),
                          .url = text_of(k, "url"),
                          .expires = text_of(k, "expires")}));
  }
  if (j.contains("known_issue_notes") && j["known_issue_notes"].is_array()) {
    for (const auto& n : j["known_issue_notes"]) {
      FL_TRY(add_match(db, {.session = session,
                            .issue = text_of(n, "id"),
                            .outcome = text_of(n, "state"),
                            .url = text_of(n, "url"),
                            .expires = text_of(n, "expires")}));
    }
  }
  return {};
}

Result<std::vector<IndexedGateCase>> gate_cases_of(ResultIndex& index, const std::string& metric) {
  auto q = index.db().prepare(
      "SELECT session, baseline, rule, grp, metric, kernel, arch, knobs, workload, outcome, "
      "rel_change FROM gate_cases WHERE metric = ? ORDER BY session, rule, grp");
  if (!q.ok()) return q.error();
  q->bind(1, metric);
  std::vector<IndexedGateCase> out;
  FL_TRY(q->each_row([&](const SqlStmt& r) {
    IndexedGateCase c;
    int i = 0;
    for (std::string* field : {&c.session, &c.baseline, &c.rule, &c.group, &c.metric, &c.kernel,
                               &c.arch, &c.knobs, &c.workload, &c.outcome}) {
      *field = r.column_text(i++);
    }
    if (!r.column_is_null(i)) c.rel_change = r.column_double(i);
    out.push_back(std::move(c));
  }));
  return out;
}

Result<int> write_gate_files_under(SqlDb& db, const fs::path& root,
                                   const std::function<void(const std::string&)>& warn) {
  FL_TRY(db.exec("DELETE FROM known_issue_matches; DELETE FROM gate_cases"));
  std::vector<std::string> sessions;
  std::error_code ec;
  for (const auto& exp : fs::directory_iterator(root, ec)) {
    if (!exp.is_directory(ec)) continue;
    for (const auto& s : fs::directory_iterator(exp.path(), ec)) {
      if (fs::exists(s.path() / "gate.json", ec)) {
        sessions.push_back(exp.path().filename().string() + "/" + s.path().filename().string());
      }
    }
  }
  std::sort(sessions.begin(), sessions.end());
  int n = 0;
  for (const std::string& session : sessions) {
    FL_TRY(db.exec("SAVEPOINT gate_file"));
    if (auto st = index_gate_file(db, root, session); !st.ok()) {
      warn(st.error().message);
      FL_TRY(db.exec("ROLLBACK TO gate_file; RELEASE gate_file"));
      continue;
    }
    FL_TRY(db.exec("RELEASE gate_file"));
    ++n;
  }
  return n;
}

}  // namespace foliolab
