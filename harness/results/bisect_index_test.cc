#include "results/bisect_index.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "results/index_rebuild.h"
#include "results/store.h"
#include "testing/bisect_fixture.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

constexpr const char* kExperiment = "bisect-variants";
constexpr const char* kMetric = "mthp.64kB.anon_fault_alloc";
// The README's example names this bisection.
constexpr const char* kBisection = "bisect-variants/bisect-20261201T100000Z";

// README.md, "Which one moved it": the sessions of a bisection with their verdicts and runs.
constexpr const char* kReadmeQuery =
    "SELECT bs.role, bs.ordinal, bs.verdict, bs.session, r.knob_set, r.status "
    "FROM bisections b JOIN bisect_sessions bs ON bs.bisection = b.id "
    "JOIN sessions s ON s.path = bs.session JOIN runs r ON r.session_id = s.id "
    "WHERE b.path = 'bisect-variants/bisect-20261201T100000Z' "
    "ORDER BY bs.role DESC, bs.ordinal, bs.session, r.knob_set";

const std::vector<std::string> kVariants = {"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"};

// 64K mTHP switches on at v6: 0 allocations before, 256 from it on.
double value_of(size_t candidate) { return candidate >= 5 ? 256 : 0; }

// A results session of the bisection: one run per candidate, saved and indexed as `run` does.
fs::path step_session(ResultIndex& index, int k, const std::vector<size_t>& candidates) {
  const fs::path dir = index.root() / kExperiment / fmt::format("20261201T1001{:02}Z", k);
  fs::create_directories(dir / "runs");
  auto store = ResultStore::open(dir);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return dir;
  for (size_t c : candidates) {
    FakeRun f;
    f.experiment = kExperiment;
    f.knobs = kVariants[c];
    f.deltas = {{kMetric, {int64_t(value_of(c)), int64_t(value_of(c))}}};
    const RunRecord r = fake_record(f);
    EXPECT_TRUE(store->save_record(r).ok());
    EXPECT_TRUE(index.add_run(dir, r).ok());
  }
  return dir;
}

BisectStep step(ResultIndex& index, int k, size_t candidate) {
  const double v = value_of(candidate);
  return {.candidate = candidate,
          .cls = v == 0 ? "good" : "bad",
          .session = step_session(index, k, {candidate}).string(),
          .evidence = fmt::format("n=2: {} {}", v, v),
          .values = {v, v}};
}

// `bisect --variants v1,…,v8`: both ends, then v4, v6, v5, and v6 confirmed against v5 in two
// fresh sessions.
FakeBisection bisection(ResultIndex& index) {
  FakeBisection b{.variants = kVariants, .metric = kMetric};
  int k = 0;
  for (size_t c : std::vector<size_t>{0, 7, 3, 5, 4}) b.steps.push_back(step(index, k++, c));
  BisectConfirmation conf{.parent = 4, .culprit = 5, .confirmed = true, .evidence = "0 -> 256"};
  for (int i = 0; i < 2; ++i) conf.sessions.push_back(step_session(index, k++, {4, 5}).string());
  b.confirmations.push_back(conf);
  return b;
}

// Every row of a query, one line each, columns separated by '|' as sqlite3 prints them.
std::vector<std::string> rows(SqlDb& db, const std::string& sql) {
  auto stmt = db.prepare(sql);
  EXPECT_TRUE(stmt.ok()) << (stmt.ok() ? "" : stmt.error().message);
  std::vector<std::string> out;
  while (stmt.ok()) {
    auto row = stmt->step();
    EXPECT_TRUE(row.ok()) << (row.ok() ? "" : row.error().message);
    if (!row.ok() || !*row) break;
    std::string line;
    for (int i = 0; i < stmt->column_count(); ++i) {
      line += (i ? "|" : "") + (stmt->column_is_null(i) ? "NULL" : stmt->column_text(i));
    }
    out.push_back(line);
  }
  return out;
}

// The three tables, whole.
std::vector<std::string> bisection_rows(SqlDb& db) {
  std::vector<std::string> out;
  for (const char* sql :
       {"SELECT * FROM bisections ORDER BY path",
        "SELECT b.path, st.* FROM bisect_steps st JOIN bisections b ON b.id = st.bisection "
        "ORDER BY b.path, st.ordinal",
        "SELECT b.path, c.* FROM bisect_confirmations c JOIN bisections b ON b.id = c.bisection "
        "ORDER BY b.path, c.ordinal"}) {
    for (std::string& row : rows(db, sql)) out.push_back(std::move(row));
  }
  return out;
}

std::string collapse_space(const std::string& text) {
  std::string out;
  std::istringstream words(text);
  for (std::string w; words >> w;) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

TEST(BisectIndex, RecordsABisectionLinkedToItsSessions) {
  const fs::path root = fresh_test_dir("foliolab-bisect-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  const FakeBisection b = bisection(*index);
  ASSERT_TRUE(write_bisect_log(root / kBisection, b).ok());
  auto st = index_bisection(*index, root / kBisection);
  ASSERT_TRUE(st.ok()) << st.error().message;

  SqlDb& db = index->db();
  EXPECT_EQ(rows(db,
                 "SELECT path, experiment, metric, selection, candidates, state, culprit, "
                 "culprit_candidate, started FROM bisections"),
            std::vector<std::string>{fmt::format("{}|{}|{}|arch=x86_64|8|confirmed|v6|5|"
                                                 "20261201T100000Z",
                                                 kBisection, kExperiment, kMetric)});
  EXPECT_EQ(rows(db,
                 "SELECT ordinal, candidate, candidate_name, class, session, evidence, "
                 "rep_values FROM bisect_steps ORDER BY ordinal"),
            (std::vector<std::string>{
                "0|0|v1|good|bisect-variants/20261201T100100Z|n=2: 0 0|[0.0,0.0]",
                "1|7|v8|bad|bisect-variants/20261201T100101Z|n=2: 256 256|[256.0,256.0]",
                "2|3|v4|good|bisect-variants/20261201T100102Z|n=2: 0 0|[0.0,0.0]",
                "3|5|v6|bad|bisect-variants/20261201T100103Z|n=2: 256 256|[256.0,256.0]",
                "4|4|v5|good|bisect-variants/20261201T100104Z|n=2: 0 0|[0.0,0.0]"}));
  EXPECT_EQ(rows(db,
                 "SELECT parent, culprit, confirmed, evidence, sessions "
                 "FROM bisect_confirmations"),
            std::vector<std::string>{"4|5|1|0 -> 256|[\"bisect-variants/20261201T100105Z\","
                                     "\"bisect-variants/20261201T100106Z\"]"});
  // A step joins to its runs through the session key, by the index on it.
  EXPECT_EQ(rows(db,
                 "SELECT st.candidate_name, r.knob_set, r.status FROM bisect_steps st "
                 "JOIN sessions s ON s.path = st.session JOIN runs r ON r.session_id = s.id "
                 "WHERE st.ordinal = 3"),
            std::vector<std::string>{"v6|v6|ok"});
  auto plan = rows(db, "EXPLAIN QUERY PLAN SELECT * FROM bisect_steps WHERE session = 'x'");
  ASSERT_FALSE(plan.empty());
  EXPECT_NE(plan.back().find("bisect_steps_session"), std::string::npos) << plan.back();

  // Indexed again (the command calls it after each step): replaced, same id, no duplicates.
  const int64_t id = *db.query_int("SELECT id FROM bisections");
  ASSERT_TRUE(index_bisection(*index, root / kBisection).ok());
  EXPECT_EQ(*db.query_int("SELECT id FROM bisections"), id);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM bisect_steps"), 5);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM bisect_confirmations"), 1);
  fs::remove_all(root);
}

// The README's example query, run as printed there.
TEST(BisectIndex, TheReadmeQueryListsTheSessionsOfABisection) {
  auto readme = read_file(fs::path(source_dir()) / "README.md");
  ASSERT_TRUE(readme.ok()) << readme.error().message;
  EXPECT_NE(collapse_space(*readme).find(kReadmeQuery), std::string::npos)
      << "README.md no longer shows: " << kReadmeQuery;
  const fs::path root = fresh_test_dir("foliolab-bisect-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  ASSERT_TRUE(write_bisect_log(root / kBisection, bisection(*index)).ok());
  ASSERT_TRUE(index_bisection(*index, root / kBisection).ok());
  const std::string s = "bisect-variants/20261201T10010";
  EXPECT_EQ(rows(index->db(), kReadmeQuery),
            (std::vector<std::string>{
                "step|0|good|" + s + "0Z|v1|ok", "step|1|bad|" + s + "1Z|v8|ok",
                "step|2|good|" + s + "2Z|v4|ok", "step|3|bad|" + s + "3Z|v6|ok",
                "step|4|good|" + s + "4Z|v5|ok", "confirmation|0|confirmed|" + s + "5Z|v5|ok",
                "confirmation|0|confirmed|" + s + "5Z|v6|ok",
                "confirmation|0|confirmed|" + s + "6Z|v5|ok",
                "confirmation|0|confirmed|" + s + "6Z|v6|ok"}));
  fs::remove_all(root);
}

// What the log holds decides the state (the log does not record how the search ended).
TEST(BisectIndex, StateAsTheLogShowsIt) {
  const fs::path root = fresh_test_dir("foliolab-bisect-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  const FakeBisection full = bisection(*index);
  auto state_of = [&](const FakeBisection& b) {
    EXPECT_TRUE(write_bisect_log(root / kBisection, b).ok());
    auto st = index_bisection(*index, root / kBisection);
    EXPECT_TRUE(st.ok()) << st.error().message;
    fs::remove(root / kBisection / kBisectLogFile);
    return rows(index->db(), "SELECT state, culprit FROM bisections").at(0);
  };
  FakeBisection b{.variants = kVariants};
  EXPECT_EQ(state_of(b), "started|NULL");
  b.steps = {full.steps[0]};
  EXPECT_EQ(state_of(b), "searching|NULL");
  b.steps = {full.steps[0], full.steps[1]};
  EXPECT_EQ(state_of(b), "searching|NULL");
  BisectStep same_end = full.steps[1];
  same_end.cls = "good";
  b.steps = {full.steps[0], same_end};
  EXPECT_EQ(state_of(b), "does not reproduce|NULL");
  BisectStep skipped_end = full.steps[1];
  skipped_end.cls.reset();
  b.steps = {full.steps[0], skipped_end};
  EXPECT_EQ(state_of(b), "endpoint skipped|NULL");
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM bisect_steps WHERE class IS NULL"), 1);
  b = full;
  b.confirmations[0].confirmed = false;
  EXPECT_EQ(state_of(b), "unconfirmed|v6");
  // Two culprits, the second confirmed: it is the one named.
  b = full;
  b.confirmations.insert(b.confirmations.begin(), BisectConfirmation{.parent = 1, .culprit = 2});
  EXPECT_EQ(state_of(b), "confirmed|v6");
  fs::remove_all(root);
}

TEST(BisectIndex, RebuildRestoresTheSameRows) {
  const fs::path root = fresh_test_dir("foliolab-bisect-index");
  std::vector<std::string> before;
  {
    auto index = ResultIndex::open(root);
    ASSERT_TRUE(index.ok()) << index.error().message;
    ASSERT_TRUE(write_bisect_log(root / kBisection, bisection(*index)).ok());
    ASSERT_TRUE(index_bisection(*index, root / kBisection).ok());
    FakeBisection second{.variants = {"a", "b"}};
    second.steps = {{.candidate = 0, .cls = "1", .session = "", .evidence = "n=2: 1 1"}};
    ASSERT_TRUE(write_bisect_log(root / kExperiment / "bisect-20261201T110000Z", second).ok());
    ASSERT_TRUE(index_bisection(*index, root / kExperiment / "bisect-20261201T110000Z").ok());
    before = bisection_rows(index->db());
  }
  ASSERT_EQ(before.size(), 2u + 6u + 1u);
  // A damaged log is reported at rebuild and leaves no rows.
  ASSERT_TRUE(write_file_atomic(root / kExperiment / "bisect-20261201T120000Z" / kBisectLogFile,
                                "{\"schema\": 1, \"steps\": [{\"candidate\": 0}]}")
                  .ok());
  for (const char* suffix : {"", "-wal", "-shm"})
    fs::remove(root / (kIndexFile + std::string(suffix)));
  std::vector<std::string> warnings;
  auto n = rebuild_index(root, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 5 + 2 * 2);  // the runs
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("bisect-20261201T120000Z/bisect.json: damaged bisection log"),
            std::string::npos)
      << warnings[0];
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(bisection_rows(index->db()), before);
  EXPECT_EQ(rows(index->db(), kReadmeQuery).size(), 9u);
  fs::remove_all(root);
}

// An index of schema 3 gets the bisection tables in place, keeping its rows.
TEST(BisectIndex, MigratesFromSchema3) {
  const fs::path root = fresh_test_dir("foliolab-bisect-index");
  {
    auto db = SqlDb::open((root / kIndexFile).string(), 1000);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(migrate_index(*db, 3).ok());
    ASSERT_TRUE(db->exec("INSERT INTO sessions(path, experiment, stamp) VALUES("
                         "'bisect-variants/20261201T100100Z', 'bisect-variants', "
                         "'20261201T100100Z');"
                         "INSERT INTO runs(session_id, run_id, experiment, kernel, arch, knob_set, "
                         "workload, workload_name, status, reason, accel, timings_emulated, "
                         "kernel_build_id, started, finished) VALUES(1, 'old', 'bisect-variants', "
                         "'k', 'x86_64', 'v1', 'fault', 'fault', 'ok', '', 'tcg', 1, 'b', '', '');")
                    .ok());
    EXPECT_FALSE(db->prepare("SELECT * FROM bisections").ok());
  }
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(*index->db().query_int("PRAGMA user_version"), kIndexSchema);
  FakeBisection b{.variants = kVariants};
  b.steps = {{.candidate = 0,
              .cls = "good",
              .session = (root / "bisect-variants/20261201T100100Z").string(),
              .evidence = "n=2: 0 0",
              .values = {0, 0}}};
  ASSERT_TRUE(write_bisect_log(root / kBisection, b).ok());
  auto st = index_bisection(*index, root / kBisection);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(rows(index->db(), kReadmeQuery),
            std::vector<std::string>{"step|0|good|bisect-variants/20261201T100100Z|v1|ok"});
  fs::remove_all(root);
}

// Where a step's session was logged does not matter: relative to the directory foliolab ran
// in, absolute, with a trailing slash, or none at all.
TEST(BisectIndex, SessionKeysHoweverTheLogSpeltThem) {
  const fs::path root = fresh_test_dir("foliolab-bisect-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  FakeBisection b{.variants = {"a", "b"}};
  for (const std::string& s : std::vector<std::string>{"results/e/20261201T000000Z",
                                                       (root / "e/20261201T000001Z/").string(),
                                                       "./e/20261201T000002Z", ""}) {
    b.steps.push_back({.candidate = 0, .cls = "1", .session = s});
  }
  ASSERT_TRUE(write_bisect_log(root / "e/bisect-20261201T000000Z", b).ok());
  ASSERT_TRUE(index_bisection(*index, root / "e/bisect-20261201T000000Z").ok());
  EXPECT_EQ(rows(index->db(), "SELECT session FROM bisect_steps ORDER BY ordinal"),
            (std::vector<std::string>{"e/20261201T000000Z", "e/20261201T000001Z",
                                      "e/20261201T000002Z", "NULL"}));
  // A directory outside the root is refused.
  const fs::path elsewhere = fresh_test_dir("foliolab-bisect-elsewhere");
  ASSERT_TRUE(write_bisect_log(elsewhere / "bisect-x", b).ok());
  auto st = index_bisection(*index, elsewhere / "bisect-x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("not under the results root"), std::string::npos);
  fs::remove_all(root);
  fs::remove_all(elsewhere);
}

}  // namespace foliolab
