#include "results/pushed_sessions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "results/sql_batch.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace {

// A hostname as a plain name ("lab1.example" stays, "a b" -> "a-b").
std::string plain_host(const std::string& host) {
  std::string out;
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '-';
  }
  return is_plain_name(out) ? out : "pushed";
}

Result<std::optional<std::string>> key_of_digest(SqlDb& db, const std::string& digest) {
  auto q = db.prepare(
      "SELECT se.path FROM pushes p JOIN sessions se ON se.id = p.session_id WHERE p.digest = ?");
  if (!q.ok()) return q.error();
  q->bind(1, digest);
  auto row = q->step();
  if (!row.ok()) return row.error();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(q->column_text(0));
}

// A free key for the bundle: its own, else with the host's name (and a number) after the stamp.
Result<std::pair<int64_t, std::string>> new_session_row(ResultIndex& index,
                                                        const SessionBundle& b) {
  std::string key = b.key();
  for (int n = 1; n < 100; ++n) {
    bool inserted = false;
    auto row = index.session_row(key, &inserted);
    if (!row.ok()) return row.error();
    if (inserted) return std::pair{*row, key};
    key = fmt::format("{}/{}-{}{}", b.experiment, b.stamp, plain_host(b.host()),
                      n > 1 ? fmt::format("-{}", n) : "");
  }
  return make_error(fmt::format("session {}: no free key", b.key()));
}

Result<PushOutcome> store_once(ResultIndex& index, const SessionBundle& b,
                               const std::string& digest, const std::string& token_name) {
  SqlDb& db = index.db();
  SqlTransaction tx(db);
  if (!tx.begun().ok()) return tx.begun().error();
  auto existing = key_of_digest(db, digest);
  if (!existing.ok()) return existing.error();
  if (*existing) return PushOutcome{**existing, false};
  auto row = new_session_row(index, b);
  if (!row.ok()) return row.error();
  FL_TRY(index.insert_runs(row->first, b.records));
  SqlBatch files(db, "INSERT INTO session_files(session_id, name, body)", 3);
  for (const auto& [name, body] : b.files) files.add({row->first, name, body});
  FL_TRY(files.flush());
  auto push =
      db.prepare("INSERT INTO pushes(session_id, digest, host, token, pushed) VALUES(?,?,?,?,?)");
  if (!push.ok()) return push.error();
  FL_TRY(push->bind(1, row->first)
             .bind(2, digest)
             .bind(3, b.host())
             .bind(4, token_name)
             .bind(5, utc_stamp())
             .run());
  FL_TRY(tx.commit());
  return PushOutcome{row->second, true};
}

}  // namespace

Result<PushOutcome> store_pushed_session(ResultIndex& index, const SessionBundle& bundle,
                                         const std::string& token_name) {
  const std::string digest = bundle.digest();
  auto out = store_once(index, bundle, digest, token_name);
  // Two pushes of one new session at once (PostgreSQL): the second meets the first's digest
  // only at its commit, as a unique violation; once more, it finds the session stored.
  if (!out.ok() && out.error().message.find("pushes_digest_key") != std::string::npos) {
    return store_once(index, bundle, digest, token_name);
  }
  return out;
}

Result<std::optional<SessionBundle>> load_pushed_session(ResultIndex& index,
                                                         const std::string& key) {
  auto q = index.db().prepare(
      "SELECT f.name, f.body FROM session_files f JOIN sessions se ON se.id = f.session_id "
      "WHERE se.path = ? ORDER BY f.name");
  if (!q.ok()) return q.error();
  q->bind(1, key);
  std::map<std::string, std::string> files;
  for (;;) {
    auto row = q->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    files[q->column_text(0)] = q->column_text(1);
  }
  const size_t slash = key.rfind('/');
  if (files.empty() || slash == std::string::npos) return std::optional<SessionBundle>();
  auto b = bundle_from_files(key.substr(0, slash), key.substr(slash + 1), std::move(files));
  if (!b.ok()) return in_context(fmt::format("stored session {}", key), b.error());
  return std::optional<SessionBundle>(std::move(*b));
}

namespace {

void add_sorted(std::vector<std::string>* v, const std::string& s) {
  auto it = std::lower_bound(v->begin(), v->end(), s);
  if (it == v->end() || *it != s) v->insert(it, s);
}

}  // namespace

Result<std::vector<PushedSession>> list_sessions(ResultIndex& index, const SessionFilter& f) {
  std::vector<std::string> params;
  std::string where;
  auto eq = [&](const char* clause, const std::string& value) {
    if (value.empty()) return;
    where += clause;
    params.push_back(value);
  };
  eq(" AND se.experiment = ?", f.experiment);
  eq(" AND COALESCE(p.host, '') = ?", f.host);
  eq(" AND EXISTS (SELECT 1 FROM runs k WHERE k.session_id = se.id AND k.kernel = ?)", f.kernel);
  auto q = index.db().prepare(fmt::format(
      "SELECT se.path, se.experiment, se.stamp, COALESCE(p.host, ''), COALESCE(p.pushed, ''), "
      "r.kernel, r.arch, r.status FROM (SELECT se.* FROM sessions se LEFT JOIN pushes p ON "
      "p.session_id = se.id WHERE 1=1{} ORDER BY se.stamp DESC, se.path DESC LIMIT {}) se "
      "LEFT JOIN pushes p ON p.session_id = se.id LEFT JOIN runs r ON r.session_id = se.id "
      "ORDER BY se.stamp DESC, se.path DESC",
      where, std::max(1, f.limit)));
  if (!q.ok()) return q.error();
  for (size_t i = 0; i < params.size(); ++i) q->bind(static_cast<int>(i + 1), params[i]);
  std::vector<PushedSession> out;
  for (;;) {
    auto row = q->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    if (out.empty() || out.back().key != q->column_text(0)) {
      out.push_back({q->column_text(0), q->column_text(1), q->column_text(2), q->column_text(3),
                     q->column_text(4)});
    }
    PushedSession& s = out.back();
    if (q->column_is_null(5)) continue;
    add_sorted(&s.kernels, q->column_text(5));
    add_sorted(&s.arches, q->column_text(6));
    ++s.runs;
    s.ok += q->column_text(7) == "ok";
  }
  return out;
}

}  // namespace foliolab
