#include "results/index_schema.h"

#include <fmt/format.h>

#include <unistd.h>

#include <iterator>
#include <system_error>

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
    // 6: what a lab server (`foliolab serve`) keeps beside the index: each pushed session's
    // files (the server has no results tree; a push is one transaction), who pushed it and the
    // digest that makes a second push of the same session a no-op, and the tokens (hashed).
    R"sql(
CREATE TABLE session_files(
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  name TEXT NOT NULL,             -- plan.json, experiment.yaml, runs/<run id>/run.json, ...
  body TEXT NOT NULL,
  PRIMARY KEY(session_id, name)) WITHOUT ROWID;
CREATE TABLE pushes(
  session_id INTEGER NOT NULL PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  digest TEXT NOT NULL UNIQUE,    -- SHA-256 over the session's files (results/session_bundle.h)
  host TEXT NOT NULL,             -- the hostname the runs name
  token TEXT NOT NULL,            -- the pushing token's name
  pushed TEXT NOT NULL);          -- when, as a stamp
CREATE TABLE tokens(
  name TEXT NOT NULL PRIMARY KEY,
  scope TEXT NOT NULL CHECK(scope IN ('push', 'read')),
  hash TEXT NOT NULL UNIQUE,      -- SHA-256 of the token, hex
  created TEXT NOT NULL);
)sql",
    // 7: the gate's cases (results/finding_index.h): each candidate session's verdicts, a row
    // per rule, group and metric, with the group's identity so that a metric's history can show
    // the verdict beside its point. From gate.json, as the known-issue matches are.
    R"sql(
CREATE TABLE gate_cases(
  session TEXT NOT NULL,          -- the candidate session the gate judged
  baseline TEXT NOT NULL,         -- what it was judged against
  rule TEXT NOT NULL, grp TEXT NOT NULL, metric TEXT NOT NULL,
  kernel TEXT NOT NULL, arch TEXT NOT NULL, knobs TEXT NOT NULL, workload TEXT NOT NULL,
  outcome TEXT NOT NULL,          -- pass, FAIL, flaky, INFRA, known, skip
  rel_change REAL,                -- candidate against baseline; NULL when not computed
  PRIMARY KEY(session, rule, grp, metric)) WITHOUT ROWID;
CREATE INDEX gate_cases_metric ON gate_cases(metric);
)sql",
    // 8: distribution metrics (issue 56, model/distribution.h): a row per run, metric and rep
    // with its quantiles and its buckets; the quantiles are in `samples` too, as <metric>.p50,
    // .p90, .p99, .max and .count, so that history, gate and bisect read them like any metric.
    R"sql(
CREATE TABLE distributions(
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  metric TEXT NOT NULL, rep INTEGER NOT NULL,
  unit TEXT NOT NULL, count INTEGER NOT NULL, sum REAL NOT NULL, min REAL NOT NULL,
  max REAL NOT NULL, p50 REAL NOT NULL, p90 REAL NOT NULL, p99 REAL NOT NULL,
  buckets TEXT NOT NULL,          -- JSON: [[lo, hi, count], ...] (lo = hi: exactly lo)
  PRIMARY KEY(run, metric, rep)) WITHOUT ROWID;
)sql",
};
static_assert(std::size(kMigrations) == kIndexSchema);

// WAL must be switched on outside a transaction; a concurrent opener may hold the lock for a
// moment, and the busy handler does not cover journal-mode changes, so retry briefly.
Result<void> enable_wal(SqlDb& db) {
  for (int attempt = 0;; ++attempt) {
    auto stmt = db.prepare("PRAGMA journal_mode=WAL");
    if (!stmt.ok()) return stmt.error();
    auto row = stmt->step();
    if (row.ok() && *row && stmt->column_text(0) == "wal") return {};
    const bool busy = !row.ok() && (row.error().message.find("locked") != std::string::npos ||
                                    row.error().message.find("busy") != std::string::npos);
    if (!busy || attempt >= 200) {
      return make_error(fmt::format("{}: cannot switch to WAL mode: {}", db.name(),
                                    row.ok() ? stmt->column_text(0) : row.error().message));
    }
    ::usleep(50'000);
  }
}

}  // namespace

Result<void> migrate_index(SqlDb& db, int target) {
  SqlConnection& c = db.connection();
  for (;;) {
    SqlTransaction tx(db);
    if (!tx.begun().ok()) return tx.begun();
    FL_TRY(c.lock_schema());
    auto version = c.schema_version();
    if (!version.ok()) return version.error();
    if (*version > kIndexSchema) {
      return make_error(
          fmt::format("{}: index schema {} is newer than this foliolab ({}); "
                      "`foliolab index rebuild` recreates it",
                      db.name(), *version, kIndexSchema));
    }
    if (*version >= target) return {};
    FL_TRY(db.exec(c.ddl(kMigrations[*version])));
    FL_TRY(c.set_schema_version(*version + 1));
    FL_TRY(tx.commit());
  }
}

Result<IndexDb> open_index_db(const fs::path& results_root) {
  std::error_code ec;
  fs::create_directories(results_root, ec);
  if (ec) {
    return make_error(fmt::format("cannot create {}: {}", results_root.string(), ec.message()));
  }
  const fs::path root = fs::weakly_canonical(results_root, ec);
  auto db = open_index_url((root / kIndexFile).string());
  if (!db.ok()) return db.error();
  return IndexDb{std::move(*db), root};
}

Result<SqlDb> open_index_url(const std::string& target) {
  auto db = SqlDb::open(target, kBusyTimeoutMs);
  if (!db.ok()) return db.error();
  if (db->engine() == SqlEngine::kSqlite) {
    FL_TRY(enable_wal(*db));
    FL_TRY(db->exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL"));
  }
  FL_TRY(migrate_index(*db));
  return std::move(*db);
}

}  // namespace foliolab
