#include "server/lab_findings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "report/dashboard.h"
#include "results/bisect_index.h"
#include "results/bisect_log.h"
#include "results/bisect_query.h"
#include "results/finding_index.h"
#include "results/session_bundle.h"
#include "server/lab_api.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

LabReply error_reply(int status, const std::string& message) {
  return {status, error_json(message)};
}

LabReply html_reply(const std::string& page) { return {200, page, "text/html; charset=utf-8"}; }

Result<bool> is_pushed(ResultIndex& index, const std::string& session) {
  auto q = index.db().prepare(
      "SELECT COUNT(*) FROM pushes p JOIN sessions s ON s.id = p.session_id WHERE s.path = ?");
  if (!q.ok()) return q.error();
  q->bind(1, session);
  auto row = q->step();
  if (!row.ok()) return row.error();
  return *row && q->column_int(0) > 0;
}

bool plain_names(const std::string& a, const std::string& b) {
  return is_plain_name(a) && is_plain_name(b);
}

}  // namespace

LabReply store_gate_report(ResultIndex& index, const std::string& session, std::string_view body) {
  auto pushed = is_pushed(index, session);
  if (!pushed.ok()) return error_reply(503, pushed.error().message);
  if (!*pushed) {
    return error_reply(404, fmt::format("no session {}: push it before its gate", session));
  }
  const json doc = json::parse(body, nullptr, false);
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array()) {
    return error_reply(400, "the gate's verdicts: not a gate.json (no cases)");
  }
  SqlTransaction tx(index.db());
  if (!tx.begun().ok()) return error_reply(503, tx.begun().error().message);
  if (auto st = index_gate_report(index.db(), session, body, "the gate's verdicts"); !st.ok()) {
    return error_reply(400, st.error().message);
  }
  if (auto st = tx.commit(); !st.ok()) return error_reply(503, st.error().message);
  return {201, json{{"session", session}, {"cases", doc["cases"].size()}}.dump()};
}

LabReply gate_cases_reply(ResultIndex& index, const std::string& metric) {
  if (metric.empty()) return error_reply(400, "?metric= is needed");
  auto cases = gate_cases_of(index, metric);
  if (!cases.ok()) return error_reply(503, cases.error().message);
  return {200, gate_cases_json(*cases)};
}

LabReply store_bisection(ResultIndex& index, const fs::path& store, const std::string& experiment,
                         const std::string& dir, std::string_view body) {
  if (!plain_names(experiment, dir) || !dir.starts_with("bisect-")) {
    return error_reply(
        400, fmt::format("'{}/{}' is not a bisection (EXPERIMENT/bisect-STAMP)", experiment, dir));
  }
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(store / "bisections", ec);
  const fs::path incoming = root / ".incoming" / (sha256_hex(body).substr(0, 16) + ".json");
  if (auto st = make_dirs(incoming.parent_path()); !st.ok()) {
    return error_reply(500, st.error().message);
  }
  if (auto st = write_file_atomic(incoming, body); !st.ok()) {
    return error_reply(500, st.error().message);
  }
  auto log = BisectLog::open(incoming);
  if (!log.ok()) {
    (void)remove_tree(incoming);
    return error_reply(
        400, fmt::format("{}/{}: not a bisection log: {}", experiment, dir, log.error().message));
  }
  const fs::path target = root / experiment / dir;
  SqlTransaction tx(index.db());
  Result<void> st = tx.begun();
  if (st.ok()) st = make_dirs(target);
  if (st.ok()) st = rename_path(incoming, target / kBisectLogFile);
  if (st.ok()) st = write_bisection(index.db(), root, target);
  if (st.ok()) st = tx.commit();
  if (!st.ok()) return error_reply(503, st.error().message);
  return {201, json{{"bisection", experiment + "/" + dir}, {"steps", log->steps().size()}}.dump()};
}

LabReply bisection_log_reply(const fs::path& store, const std::string& experiment,
                             const std::string& dir) {
  if (!plain_names(experiment, dir)) return error_reply(400, "not a bisection name");
  auto text = read_file(store / "bisections" / experiment / dir / kBisectLogFile);
  if (!text.ok()) return error_reply(404, fmt::format("no bisection {}/{}", experiment, dir));
  return {200, *text};
}

LabReply bisection_page_reply(ResultIndex& index, const std::string& experiment,
                              const std::string& dir) {
  if (!plain_names(experiment, dir)) return error_reply(400, "not a bisection name");
  auto detail = bisection_detail(index.db(), experiment + "/" + dir);
  if (!detail.ok()) return error_reply(503, detail.error().message);
  std::ostringstream out;
  if (!*detail) {
    write_message_page("no such bisection", experiment + "/" + dir, out);
    return {404, out.str(), "text/html; charset=utf-8"};
  }
  write_bisection_page(**detail, out);
  return html_reply(out.str());
}

}  // namespace foliolab
