#include "results/bisect_query.h"

#include <nlohmann/json.hpp>

#include "util/text.h"

namespace foliolab {
namespace {

constexpr const char* kBisectionColumns =
    "SELECT id, path, experiment, metric, selection, state, COALESCE(culprit, ''), started, "
    "updated, candidates, variants FROM bisections";

IndexedBisection bisection_of(const SqlStmt& q) {
  IndexedBisection b;
  int i = 1;
  for (std::string* field : {&b.path, &b.experiment, &b.metric, &b.selection, &b.state, &b.culprit,
                             &b.started, &b.updated}) {
    *field = q.column_text(i++);
  }
  b.candidates = static_cast<int>(q.column_int(i));
  return b;
}

// Candidate n's name from the bisection's variants (one a line), "#n" past them.
std::string candidate_name(const std::vector<std::string>& names, int64_t n) {
  if (n >= 0 && static_cast<size_t>(n) < names.size()) return names[static_cast<size_t>(n)];
  return "#" + std::to_string(n);
}

Result<void> read_steps(SqlDb& db, int64_t id, IndexedBisectionDetail& d) {
  auto q = db.prepare(
      "SELECT ordinal, COALESCE(candidate_name, ''), COALESCE(class, ''), "
      "COALESCE(session, ''), evidence FROM bisect_steps WHERE bisection = ? "
      "ORDER BY ordinal");
  if (!q.ok()) return q.error();
  q->bind(1, id);
  return q->each_row([&](const SqlStmt& r) {
    d.steps.push_back({static_cast<int>(r.column_int(0)), r.column_text(1), r.column_text(2),
                       r.column_text(3), r.column_text(4)});
  });
}

Result<void> read_confirmations(SqlDb& db, int64_t id, IndexedBisectionDetail& d,
                                const std::vector<std::string>& names) {
  auto q = db.prepare(
      "SELECT parent, culprit, confirmed, evidence, sessions FROM bisect_confirmations "
      "WHERE bisection = ? ORDER BY ordinal");
  if (!q.ok()) return q.error();
  q->bind(1, id);
  return q->each_row([&](const SqlStmt& r) {
    IndexedBisectConfirmation c{candidate_name(names, r.column_int(1)),
                                candidate_name(names, r.column_int(0)), r.column_int(2) != 0,
                                r.column_text(3)};
    const nlohmann::json sessions = nlohmann::json::parse(r.column_text(4), nullptr, false);
    if (sessions.is_array()) {
      for (const auto& s : sessions) {
        if (s.is_string()) c.sessions.push_back(s.get<std::string>());
      }
    }
    d.confirmations.push_back(std::move(c));
  });
}

}  // namespace

Result<std::vector<IndexedBisection>> list_bisections(SqlDb& db) {
  auto q = db.prepare(std::string(kBisectionColumns) + " ORDER BY updated DESC, path");
  if (!q.ok()) return q.error();
  std::vector<IndexedBisection> rows;
  FL_TRY(q->each_row([&](const SqlStmt& r) { rows.push_back(bisection_of(r)); }));
  return rows;
}

Result<std::optional<IndexedBisectionDetail>> bisection_detail(SqlDb& db, const std::string& path) {
  auto q = db.prepare(std::string(kBisectionColumns) + " WHERE path = ?");
  if (!q.ok()) return q.error();
  q->bind(1, path);
  auto row = q->step();
  if (!row.ok()) return row.error();
  if (!*row) return std::optional<IndexedBisectionDetail>();
  IndexedBisectionDetail d{bisection_of(*q)};
  const int64_t id = q->column_int(0);
  std::vector<std::string> names;
  const std::string variants = q->column_text(10);
  for (std::string_view v : split_lines(variants)) names.emplace_back(v);
  FL_TRY(read_steps(db, id, d));
  FL_TRY(read_confirmations(db, id, d, names));
  return std::optional<IndexedBisectionDetail>(std::move(d));
}

}  // namespace foliolab
