#include "results/index.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>

#include "results/bisect_index.h"
#include "results/finding_index.h"
#include "results/record_codec.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr int kBusyTimeoutMs = 60'000;

// Step N brings the schema from version N-1 to N. Never edit a shipped step: add one.
const char* const kMigrations[] = {
    // 1: sessions, runs, samples, counter deltas, knob state.
    R"sql(
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,      -- relative to the results root: <experiment>/<stamp>
  experiment TEXT NOT NULL,
  stamp TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  experiment TEXT NOT NULL,
  kernel TEXT NOT NULL,
  arch TEXT NOT NULL,
  knob_set TEXT NOT NULL,
  workload TEXT NOT NULL,         -- label
  workload_name TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  accel TEXT NOT NULL,
  timings_emulated INTEGER NOT NULL,
  kernel_build_id TEXT NOT NULL,
  started TEXT NOT NULL,
  finished TEXT NOT NULL,
  UNIQUE(session_id, run_id));
CREATE TABLE samples(
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  metric TEXT NOT NULL, rep INTEGER NOT NULL, value REAL NOT NULL,
  PRIMARY KEY(run, metric, rep)) WITHOUT ROWID;
CREATE TABLE counter_deltas(
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  counter TEXT NOT NULL, rep INTEGER NOT NULL, value INTEGER NOT NULL,
  PRIMARY KEY(run, counter, rep)) WITHOUT ROWID;
CREATE TABLE knobs(
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  phase TEXT NOT NULL CHECK(phase IN ('found', 'set')), path TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(run, phase, path)) WITHOUT ROWID;
)sql",
    // 2: the failure class of a run, its provenance as key/value pairs, an identity index.
    R"sql(
ALTER TABLE runs ADD COLUMN failure_class TEXT NOT NULL DEFAULT '';
CREATE TABLE provenance(
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(run, key)) WITHOUT ROWID;
CREATE INDEX runs_identity ON runs(experiment, kernel, arch, knob_set, workload);
)sql",
    // 3: the timing mode of a run (provenance.timing; runs indexed before it were wall).
    R"sql(
ALTER TABLE runs ADD COLUMN timing TEXT NOT NULL DEFAULT 'wall';
)sql",
    // 4: bisections (<experiment>/bisect-<stamp>/bisect.json), their steps and confirmations
    // (results/bisect_index.h); sessions by the key of sessions.path.
    R"sql(
CREATE TABLE bisections(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,      -- relative to the results root: <experiment>/bisect-<stamp>
  experiment TEXT NOT NULL,       -- as sessions.experiment
  experiment_file TEXT NOT NULL,
  metric TEXT NOT NULL,
  selection TEXT NOT NULL,        -- --where
  variants TEXT NOT NULL,         -- the candidates in order, one a line
  candidates INTEGER NOT NULL,
  state TEXT NOT NULL,
  culprit TEXT,                   -- the first confirmed culprit's name (else the first tried)
  culprit_candidate INTEGER,
  started TEXT NOT NULL,          -- the directory's stamp
  updated TEXT NOT NULL);         -- bisect.json's modification time, as a stamp
CREATE TABLE bisect_steps(
  bisection INTEGER NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,       -- the log's order, from 0
  candidate INTEGER NOT NULL,
  candidate_name TEXT,
  class TEXT,                     -- NULL: skipped
  session TEXT,                   -- sessions.path of the session that measured it
  evidence TEXT NOT NULL,
  rep_values TEXT NOT NULL,       -- JSON array, one value per rep
  PRIMARY KEY(bisection, ordinal)) WITHOUT ROWID;
CREATE INDEX bisect_steps_session ON bisect_steps(session);
CREATE TABLE bisect_confirmations(
  bisection INTEGER NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  parent INTEGER NOT NULL,
  culprit INTEGER NOT NULL,
  confirmed INTEGER NOT NULL,
  evidence TEXT NOT NULL,
  sessions TEXT NOT NULL,         -- JSON array of sessions.path keys
  PRIMARY KEY(bisection, ordinal)) WITHOUT ROWID;
-- Every session a bisection used: a step's (its class, 'skip' if none) and a confirmation's.
CREATE VIEW bisect_sessions(bisection, role, ordinal, verdict, session) AS
  SELECT bisection, 'step', ordinal, COALESCE(class, 'skip'), session
    FROM bisect_steps WHERE session IS NOT NULL
  UNION ALL
  SELECT c.bisection, 'confirmation', c.ordinal,
         CASE WHEN c.confirmed THEN 'confirmed' ELSE 'unconfirmed' END, j.value
    FROM bisect_confirmations c, json_each(c.sessions) j;
)sql",
    // 5: change points over history and the gate's known-issue matches (results/finding_index.h),
    // sessions by the key of sessions.path.
    R"sql(
CREATE TABLE change_points(
  id INTEGER PRIMARY KEY,
  experiment TEXT NOT NULL, kernel TEXT NOT NULL, arch TEXT NOT NULL, knob_set TEXT NOT NULL,
  workload TEXT NOT NULL, metric TEXT NOT NULL,
  before_session TEXT NOT NULL,   -- the last session before the change
  after_session TEXT NOT NULL,    -- the first session after it
  before_value REAL NOT NULL,     -- the segments' means
  after_value REAL NOT NULL,
  method TEXT NOT NULL,
  p_value REAL,
  UNIQUE(experiment, kernel, arch, knob_set, workload, metric, after_session));
CREATE INDEX change_points_before ON change_points(before_session);
CREATE INDEX change_points_after ON change_points(after_session);
CREATE TABLE known_issue_matches(
  session TEXT NOT NULL,          -- the candidate session the gate judged
  issue TEXT NOT NULL,            -- the known-issues file's id
  case_name TEXT NOT NULL,        -- the gate's case
  outcome TEXT NOT NULL,
  url TEXT NOT NULL,
  expires TEXT NOT NULL,
  PRIMARY KEY(session, issue, case_name)) WITHOUT ROWID;
)sql",
};
static_assert(std::size(kMigrations) == kIndexSchema);

// Session stamps look like 20261130T051430Z; accept 2026-11-30 and 2026-11-30T05:14:30Z too.
std::string stamp_of(std::string_view when) {
  std::string out;
  for (char c : when) {
    if (c != '-' && c != ':') out += c;
  }
  return out;
}

const std::vector<std::string> kQueryKeys = {"experiment", "kernel",  "arch",  "knobs",
                                             "workload",   "session", "since", "until"};

constexpr const char* kRunColumns =
    "se.path, se.stamp, r.experiment, r.run_id, r.kernel, r.arch, r.knob_set, r.workload, "
    "r.status, r.accel, r.timings_emulated, r.timing";
constexpr int kRunColumnCount = 12;  // of kRunColumns: a query's own columns come after them

IndexedRun run_from_row(const SqliteStmt& s, const fs::path& root) {
  IndexedRun r;
  r.session = s.column_text(0);
  r.session_dir = root / r.session;
  r.stamp = s.column_text(1);
  r.experiment = s.column_text(2);
  r.run_id = s.column_text(3);
  r.kernel = s.column_text(4);
  r.arch = s.column_text(5);
  r.knob_set = s.column_text(6);
  r.workload = s.column_text(7);
  r.status = s.column_text(8);
  r.accel = s.column_text(9);
  r.timings_emulated = s.column_int(10) != 0;
  r.timing = s.column_text(11);
  return r;
}

// " AND ..." clauses for the query, with their parameters in order.
std::string where_clause(const RunQuery& q, std::vector<std::string>* params) {
  std::string sql;
  auto eq = [&](const char* column, const std::string& value) {
    if (value.empty()) return;
    sql += fmt::format(" AND {} = ?", column);
    params->push_back(value);
  };
  eq("r.experiment", q.experiment);
  eq("r.kernel", q.kernel);
  eq("r.arch", q.arch);
  eq("r.knob_set", q.knobs);
  eq("r.workload", q.workload);
  eq("se.path", q.session);
  if (!q.since.empty()) {
    sql += " AND se.stamp >= ?";
    params->push_back(stamp_of(q.since));
  }
  if (!q.until.empty()) {
    // A date means the whole day: "until=2026-11-30" keeps 20261130T235959Z.
    sql += " AND se.stamp <= ?";
    params->push_back(stamp_of(q.until) + "~");
  }
  if (!q.include_failed) sql += " AND r.status = 'ok'";
  return sql;
}

// The provenance facts of a run that are known, one row each.
Status insert_provenance(SqliteDb& db, int64_t run, const Provenance& p) {
  auto prov = db.prepare("INSERT INTO provenance(run, key, value) VALUES(?,?,?)");
  if (!prov.ok()) return prov.error();
  const std::pair<const char*, std::string> facts[] = {
      {"host", p.host.hostname},
      {"host_cpu", p.host.cpu_model},
      {"host_kernel", p.host.kernel},
      {"foliolab_revision", p.host.foliolab_revision},
      {"kernel_version", p.kernel_version},
      {"image_id", p.image_id},
      {"backend", p.backend},
      {"emulator", p.emulator},
      {"guest_release", p.guest.release},
      {"guest_page_size", p.has_guest ? std::to_string(p.guest.page_size) : ""},
  };
  for (const auto& [key, value] : facts) {
    if (value.empty()) continue;
    prov->bind(1, run).bind(2, std::string_view(key)).bind(3, value);
    if (auto st = prov->run(); !st.ok()) return st;
  }
  return {};
}

Status insert_run(SqliteDb& db, int64_t session, const RunRecord& r) {
  auto del = db.prepare("DELETE FROM runs WHERE session_id = ? AND run_id = ?");
  if (!del.ok()) return del.error();
  if (auto st = del->bind(1, session).bind(2, r.id.run_id).run(); !st.ok()) return st;
  auto ins = db.prepare(
      "INSERT INTO runs(session_id, run_id, experiment, kernel, arch, knob_set, workload, "
      "workload_name, status, reason, accel, timings_emulated, kernel_build_id, started, "
      "finished, failure_class, timing) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!ins.ok()) return ins.error();
  const Provenance& p = r.provenance;
  ins->bind(1, session).bind(2, r.id.run_id).bind(3, r.id.experiment).bind(4, r.id.kernel.name);
  ins->bind(5, r.id.arch).bind(6, r.id.knob_set.name).bind(7, r.id.workload.label);
  ins->bind(8, r.id.workload.name).bind(9, r.status).bind(10, r.reason).bind(11, p.accel);
  ins->bind(12, int64_t{p.timings_emulated}).bind(13, p.kernel_build_id).bind(14, r.started);
  ins->bind(15, r.finished).bind(16, failure_class_name(r.failure)).bind(17, p.timing);
  if (auto st = ins->run(); !st.ok()) return st;
  const int64_t run = db.last_insert_rowid();

  auto sample = db.prepare("INSERT INTO samples(run, metric, rep, value) VALUES(?,?,?,?)");
  auto delta = db.prepare("INSERT INTO counter_deltas(run, counter, rep, value) VALUES(?,?,?,?)");
  if (!sample.ok()) return sample.error();
  if (!delta.ok()) return delta.error();
  for (const Repetition& rep : r.reps) {
    if (rep.warmup) continue;  // kept in run.json, in no statistic (history, trends)
    for (const auto& [name, value] : rep.metrics) {
      sample->bind(1, run).bind(2, name).bind(3, int64_t{rep.rep}).bind(4, value);
      if (auto st = sample->run(); !st.ok()) return st;
    }
    for (const auto& [name, value] : rep.deltas) {
      delta->bind(1, run).bind(2, name).bind(3, int64_t{rep.rep}).bind(4, value);
      if (auto st = delta->run(); !st.ok()) return st;
    }
  }
  auto knob = db.prepare("INSERT OR REPLACE INTO knobs(run, phase, path, value) VALUES(?,?,?,?)");
  if (!knob.ok()) return knob.error();
  for (const auto& [phase, kv] : {std::pair{"found", &r.knobs_found}, {"set", &r.knobs_set}}) {
    for (const auto& [path, value] : *kv) {
      knob->bind(1, run).bind(2, std::string_view(phase)).bind(3, path).bind(4, value);
      if (auto st = knob->run(); !st.ok()) return st;
    }
  }
  return insert_provenance(db, run, p);
}

// WAL must be switched on outside a transaction; a concurrent opener may hold the lock for a
// moment, and the busy handler does not cover journal-mode changes, so retry briefly.
Status enable_wal(SqliteDb& db) {
  for (int attempt = 0;; ++attempt) {
    auto stmt = db.prepare("PRAGMA journal_mode=WAL");
    if (!stmt.ok()) return stmt.error();
    auto row = stmt->step();
    if (row.ok() && *row && stmt->column_text(0) == "wal") return {};
    const bool busy = !row.ok() && (row.error().message.find("locked") != std::string::npos ||
                                    row.error().message.find("busy") != std::string::npos);
    if (!busy || attempt >= 200) {
      return make_error(fmt::format("{}: cannot switch to WAL mode: {}", db.file().string(),
                                    row.ok() ? stmt->column_text(0) : row.error().message));
    }
    ::usleep(50'000);
  }
}

}  // namespace

bool RunQuery::empty() const {
  return experiment.empty() && kernel.empty() && arch.empty() && knobs.empty() &&
         workload.empty() && session.empty() && since.empty() && until.empty();
}

Result<RunQuery> parse_run_query(std::string_view text) {
  RunQuery q;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      return make_error(fmt::format("selection '{}': expected key=value", item));
    }
    const std::string key(item.substr(0, eq));
    const std::string value(item.substr(eq + 1));
    std::string* field = key == "experiment" ? &q.experiment
                         : key == "kernel"   ? &q.kernel
                         : key == "arch"     ? &q.arch
                         : key == "knobs"    ? &q.knobs
                         : key == "workload" ? &q.workload
                         : key == "session"  ? &q.session
                         : key == "since"    ? &q.since
                         : key == "until"    ? &q.until
                                             : nullptr;
    if (!field) {
      return make_error(
          fmt::format("selection key '{}' is unknown{}", key, did_you_mean(key, kQueryKeys)) +
          " (keys: experiment, kernel, arch, knobs, workload, session, since, until)");
    }
    *field = value;
  }
  return q;
}

RunQuery merge_queries(RunQuery base, const RunQuery& extra) {
  for (auto [to, from] : {std::pair{&base.experiment, &extra.experiment},
                          {&base.kernel, &extra.kernel},
                          {&base.arch, &extra.arch},
                          {&base.knobs, &extra.knobs},
                          {&base.workload, &extra.workload},
                          {&base.session, &extra.session},
                          {&base.since, &extra.since},
                          {&base.until, &extra.until}}) {
    if (!from->empty()) *to = *from;
  }
  base.include_failed = base.include_failed || extra.include_failed;
  return base;
}

Status migrate_index(SqliteDb& db, int target) {
  for (;;) {
    SqliteTransaction tx(db);
    if (!tx.begun().ok()) return tx.begun();
    auto version = db.query_int("PRAGMA user_version");
    if (!version.ok()) return version.error();
    if (*version > kIndexSchema) {
      return make_error(
          fmt::format("{}: index schema {} is newer than this foliolab ({}); "
                      "`foliolab index rebuild` recreates it",
                      db.file().string(), *version, kIndexSchema));
    }
    if (*version >= target) return {};
    if (auto st = db.exec(kMigrations[*version]); !st.ok()) return st;
    if (auto st = db.exec(fmt::format("PRAGMA user_version = {}", *version + 1)); !st.ok()) {
      return st;
    }
    if (auto st = tx.commit(); !st.ok()) return st;
  }
}

Result<ResultIndex> ResultIndex::open(const fs::path& results_root) {
  std::error_code ec;
  fs::create_directories(results_root, ec);
  if (ec) {
    return make_error(fmt::format("cannot create {}: {}", results_root.string(), ec.message()));
  }
  const fs::path root = fs::weakly_canonical(results_root, ec);
  auto db = SqliteDb::open(root / kIndexFile, kBusyTimeoutMs);
  if (!db.ok()) return db.error();
  if (auto st = enable_wal(*db); !st.ok()) return st.error();
  if (auto st = db->exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL"); !st.ok()) {
    return st.error();
  }
  if (auto st = migrate_index(*db); !st.ok()) return st.error();
  return ResultIndex(std::move(*db), root);
}

Result<int64_t> ResultIndex::session_id(const fs::path& session_dir) {
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(session_dir, ec);
  const std::string rel = dir.lexically_relative(root_).generic_string();
  if (rel.empty() || rel.starts_with("..")) {
    return make_error(
        fmt::format("session {} is not under the results root {}", dir.string(), root_.string()));
  }
  auto ins = db_.prepare(
      "INSERT INTO sessions(path, experiment, stamp) VALUES(?,?,?) ON CONFLICT(path) DO NOTHING");
  if (!ins.ok()) return ins.error();
  ins->bind(1, rel).bind(2, dir.parent_path().filename().string()).bind(3, dir.filename().string());
  if (auto st = ins->run(); !st.ok()) return st.error();
  auto sel = db_.prepare("SELECT id FROM sessions WHERE path = ?");
  if (!sel.ok()) return sel.error();
  sel->bind(1, rel);
  auto row = sel->step();
  if (!row.ok()) return row.error();
  if (!*row) return make_error("session row vanished");
  return sel->column_int(0);
}

Status ResultIndex::add_run(const fs::path& session_dir, const RunRecord& record) {
  SqliteTransaction tx(db_);
  if (!tx.begun().ok()) return tx.begun();
  auto session = session_id(session_dir);
  if (!session.ok()) return session.error();
  if (auto st = insert_run(db_, *session, record); !st.ok()) return st;
  return tx.commit();
}

Result<std::vector<IndexedRun>> ResultIndex::find_runs(const RunQuery& query) {
  std::vector<std::string> params;
  const std::string sql = fmt::format(
      "SELECT {} FROM runs r JOIN sessions se ON se.id = r.session_id WHERE 1{} "
      "ORDER BY se.stamp, se.path, r.run_id",
      kRunColumns, where_clause(query, &params));
  auto stmt = db_.prepare(sql);
  if (!stmt.ok()) return stmt.error();
  for (size_t i = 0; i < params.size(); ++i) stmt->bind(static_cast<int>(i + 1), params[i]);
  std::vector<IndexedRun> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(run_from_row(*stmt, root_));
  }
  return out;
}

Result<std::vector<IndexedSample>> ResultIndex::samples(const std::string& metric,
                                                        const RunQuery& query) {
  std::vector<std::string> params = {metric, metric};
  const std::string sql = fmt::format(
      "SELECT {}, s.rep, s.value FROM runs r JOIN sessions se ON se.id = r.session_id "
      "JOIN (SELECT run, rep, value FROM samples WHERE metric = ? UNION ALL "
      "      SELECT run, rep, CAST(value AS REAL) FROM counter_deltas WHERE counter = ?) s "
      "ON s.run = r.id WHERE 1{} ORDER BY se.stamp, se.path, r.run_id, s.rep",
      kRunColumns, where_clause(query, &params));
  auto stmt = db_.prepare(sql);
  if (!stmt.ok()) return stmt.error();
  for (size_t i = 0; i < params.size(); ++i) stmt->bind(static_cast<int>(i + 1), params[i]);
  std::vector<IndexedSample> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back({run_from_row(*stmt, root_), static_cast<int>(stmt->column_int(kRunColumnCount)),
                   stmt->column_double(kRunColumnCount + 1)});
  }
  return out;
}

Result<std::vector<std::string>> ResultIndex::sessions(const std::string& experiment) {
  auto stmt = db_.prepare("SELECT path FROM sessions WHERE experiment = ? ORDER BY stamp, path");
  if (!stmt.ok()) return stmt.error();
  stmt->bind(1, experiment);
  std::vector<std::string> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(stmt->column_text(0));
  }
  return out;
}

Result<int> ResultIndex::rebuild(const fs::path& results_root,
                                 const std::function<void(const std::string&)>& warn) {
  auto index = open(results_root);
  if (!index.ok()) {
    // A damaged index is only a cache: start over.
    warn(fmt::format("{}; recreating it", index.error().message));
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) {
      fs::remove(results_root / (std::string(kIndexFile) + suffix), ec);
    }
    index = open(results_root);
    if (!index.ok()) return index.error();
  }
  SqliteTransaction tx(index->db_);
  if (!tx.begun().ok()) return tx.begun().error();
  if (auto st = index->db_.exec("DELETE FROM sessions; DELETE FROM bisections"); !st.ok()) {
    return st.error();
  }
  auto runs = index->index_run_files(warn);
  if (!runs.ok()) return runs.error();
  if (auto n = write_bisections_under(index->db_, index->root_, warn); !n.ok()) return n.error();
  if (auto n = write_gate_files_under(index->db_, index->root_, warn); !n.ok()) return n.error();
  if (auto st = tx.commit(); !st.ok()) return st.error();
  return runs;
}

Result<int> ResultIndex::index_run_files(const std::function<void(const std::string&)>& warn) {
  // Session directories: <root>/<experiment>/<stamp>/runs.
  std::vector<fs::path> sessions;
  std::error_code ec;
  for (const auto& exp : fs::directory_iterator(root_, ec)) {
    if (!exp.is_directory(ec)) continue;
    for (const auto& s : fs::directory_iterator(exp.path(), ec)) {
      if (fs::is_directory(s.path() / "runs", ec)) sessions.push_back(s.path());
    }
  }
  std::sort(sessions.begin(), sessions.end());
  int runs = 0;
  for (const fs::path& session : sessions) {
    std::vector<fs::path> files;
    for (const auto& run : fs::directory_iterator(session / "runs", ec)) {
      if (fs::exists(run.path() / "run.json", ec)) files.push_back(run.path() / "run.json");
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      auto text = read_file(file);
      auto record =
          text.ok() ? parse_record(*text, file.string()) : Result<RunRecord>(text.error());
      if (!record.ok()) {
        warn(record.error().message);
        continue;
      }
      auto id = session_id(session);
      if (!id.ok()) return id.error();
      if (auto st = insert_run(db_, *id, *record); !st.ok()) return st.error();
      ++runs;
    }
  }
  return runs;
}

// The value of `expr` (SQL over the runs table) for the newest ok run with this run id.
Result<std::optional<double>> ResultIndex::newest_ok_run(std::string_view expr,
                                                         const std::string& run_id) {
  auto stmt = db_.prepare(fmt::format(
      "SELECT {} FROM runs WHERE run_id = ? AND status = 'ok' ORDER BY finished DESC LIMIT 1",
      expr));
  if (!stmt.ok()) return stmt.error();
  stmt->bind(1, std::string_view(run_id));
  auto row = stmt->step();
  if (!row.ok()) return row.error();
  if (!*row || stmt->column_is_null(0)) return std::optional<double>();
  return std::optional<double>(stmt->column_double(0));
}

Result<std::optional<double>> ResultIndex::last_run_seconds(const std::string& run_id) {
  return newest_ok_run("(julianday(finished) - julianday(started)) * 86400", run_id);
}

Result<std::optional<int>> ResultIndex::last_run_reps(const std::string& run_id) {
  auto reps = newest_ok_run("(SELECT COUNT(DISTINCT rep) FROM samples WHERE samples.run = runs.id)",
                            run_id);
  if (!reps.ok()) return reps.error();
  if (!*reps) return std::optional<int>();
  return std::optional<int>(static_cast<int>(**reps));
}

}  // namespace foliolab
