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
  auto del = db.prepare("DELETE FROM known_issue_matches WHERE session = ?");
  if (!del.ok()) return del.error();
  FL_TRY(del->bind(1, session).run());
  const fs::path file = root / session / "gate.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array()) {
    return make_error(file.string() + ": not a gate.json (no cases)");
  }
  for (const auto& c : j["cases"]) {
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

Result<int> write_gate_files_under(SqlDb& db, const fs::path& root,
                                   const std::function<void(const std::string&)>& warn) {
  FL_TRY(db.exec("DELETE FROM known_issue_matches"));
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
