#include "results/index.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "results/index_rebuild.h"
#include "results/store.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

RunRecord run_of(const std::string& knobs, double faults, const std::string& arch = "x86_64") {
  FakeRun f;
  f.knobs = knobs;
  f.arch = arch;
  f.metrics = {{"faults", {faults, faults, faults}}};
  f.deltas = {{"mthp.64kB.anon_fault_alloc", {0, 0, 0}}};
  return fake_record(f);
}

fs::path session(const fs::path& root, const std::string& stamp) {
  const fs::path dir = root / "quickstart" / stamp;
  fs::create_directories(dir / "runs");
  return dir;
}

TEST(ResultIndex, RunsSamplesAndQueries) {
  const fs::path root = fresh_test_dir("foliolab-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  const fs::path s1 = session(root, "20261129T010000Z"), s2 = session(root, "20261130T010000Z");
  ASSERT_TRUE(index->add_run(s1, run_of("4K", 16386)).ok());
  ASSERT_TRUE(index->add_run(s1, run_of("64K mTHP", 1025)).ok());
  ASSERT_TRUE(index->add_run(s2, run_of("4K", 16390)).ok());
  RunRecord failed = run_of("64K mTHP", 0);
  failed.status = "failed";
  failed.failure = FailureClass::kGuest;
  ASSERT_TRUE(index->add_run(s2, failed).ok());
  // Re-adding a run replaces it (a --retry-failed rerun).
  ASSERT_TRUE(index->add_run(s1, run_of("4K", 16386)).ok());

  auto ok_runs = index->find_runs({});
  ASSERT_TRUE(ok_runs.ok()) << ok_runs.error().message;
  EXPECT_EQ(ok_runs->size(), 3u);
  RunQuery q;
  q.knobs = "4K";
  auto samples = index->samples("faults", q);
  ASSERT_TRUE(samples.ok()) << samples.error().message;
  ASSERT_EQ(samples->size(), 6u);
  EXPECT_EQ(samples->front().run.stamp, "20261129T010000Z");  // oldest first
  EXPECT_EQ(samples->back().value, 16390);
  EXPECT_EQ(samples->front().run.session_dir, fs::weakly_canonical(s1));
  auto counters = index->samples("mthp.64kB.anon_fault_alloc", {});
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ(counters->size(), 9u);
  auto since = parse_run_query("since=2026-11-30,knobs=4K");
  ASSERT_TRUE(since.ok());
  auto later = index->find_runs(*since);
  ASSERT_TRUE(later.ok());
  ASSERT_EQ(later->size(), 1u);
  EXPECT_EQ(later->front().session, "quickstart/20261130T010000Z");
  auto until = index->find_runs(*parse_run_query("until=2026-11-29"));
  ASSERT_TRUE(until.ok());
  EXPECT_EQ(until->size(), 2u);
  RunQuery with_failed;
  with_failed.include_failed = true;
  EXPECT_EQ(index->find_runs(with_failed)->size(), 4u);
  // Counted per session with the sqlite3 shell's SQL.
  auto n = index->db().query_int(
      "SELECT COUNT(*) FROM runs r JOIN sessions s ON s.id = r.session_id "
      "WHERE s.path = 'quickstart/20261129T010000Z'");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(*index->db().query_int("PRAGMA user_version"), kIndexSchema);
  fs::remove_all(root);
}

TEST(ResultIndex, QuerySyntaxErrors) {
  EXPECT_FALSE(parse_run_query("kernel").ok());
  auto typo = parse_run_query("kernal=x");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("did you mean 'kernel'"), std::string::npos);
  auto q = parse_run_query("kernel=a,arch=arm64");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(merge_queries(*q, *parse_run_query("arch=x86_64")).arch, "x86_64");
}

// Two foliolab processes writing one root at once: WAL plus one immediate transaction per run
// means every run of both lands and the database stays intact.
TEST(ResultIndex, TwoConcurrentWriterProcesses) {
  const fs::path root = fresh_test_dir("foliolab-index-concurrent");
  constexpr int kRunsEach = 60;
  pid_t children[2];
  for (int w = 0; w < 2; ++w) {
    children[w] = ::fork();
    ASSERT_GE(children[w], 0);
    if (children[w] == 0) {
      // Each writer opens (and, racing the other, creates) the index itself.
      auto index = ResultIndex::open(root);
      if (!index.ok()) ::_exit(10);
      const fs::path dir = session(root, "2026113" + std::to_string(w) + "T000000Z");
      for (int i = 0; i < kRunsEach; ++i) {
        RunRecord r = run_of("k" + std::to_string(i), 1000 + i);
        if (!index->add_run(dir, r).ok()) ::_exit(11);
      }
      ::_exit(0);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok());
  auto check = index->db().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->step());
  EXPECT_EQ(check->column_text(0), "ok");
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM runs"), 2 * kRunsEach);
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM samples"), 2 * kRunsEach * 3);
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM sessions"), 2);
  auto mode = index->db().prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok() && *mode->step());
  EXPECT_EQ(mode->column_text(0), "wal");
  fs::remove_all(root);
}

// An index written by the previous schema (1) is migrated in place, keeping its rows.
TEST(ResultIndex, MigratesFromSchema1) {
  const fs::path root = fresh_test_dir("foliolab-index-migrate");
  {
    auto db = SqlDb::open((root / kIndexFile).string(), 1000);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(migrate_index(*db, 1).ok());
    EXPECT_EQ(*db->query_int("PRAGMA user_version"), 1);
    ASSERT_TRUE(db->exec("INSERT INTO sessions(path, experiment, stamp) "
                         "VALUES('quickstart/20261101T000000Z', 'quickstart', '20261101T000000Z');"
                         "INSERT INTO runs(session_id, run_id, experiment, kernel, arch, knob_set, "
                         "workload, workload_name, status, reason, accel, timings_emulated, "
                         "kernel_build_id, started, finished) VALUES(1, 'old', 'quickstart', 'k', "
                         "'x86_64', '4K', 'fault', 'fault', 'ok', '', 'tcg', 1, 'b', '', '');"
                         "INSERT INTO samples VALUES(1, 'faults', 0, 16386);")
                    .ok());
    // Version 1 has no failure class.
    EXPECT_FALSE(db->prepare("SELECT failure_class FROM runs").ok());
  }
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(*index->db().query_int("PRAGMA user_version"), kIndexSchema);
  auto old = index->samples("faults", {});
  ASSERT_TRUE(old.ok()) << old.error().message;
  ASSERT_EQ(old->size(), 1u);
  EXPECT_EQ(old->front().run.run_id, "old");
  EXPECT_EQ(old->front().run.timing, "wall");  // schema 3: runs indexed before it were wall
  EXPECT_EQ(old->front().value, 16386);
  EXPECT_TRUE(index->db().prepare("SELECT failure_class FROM runs").ok());
  // Current writes work on the migrated file, the timing mode with them.
  RunRecord icount = run_of("4K", 1);
  icount.provenance.timing = "icount";
  ASSERT_TRUE(index->add_run(session(root, "20261130T000000Z"), icount).ok());
  auto runs = index->find_runs({});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ(runs->back().timing, "icount");
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM provenance"), 2);  // host, backend
  // A newer schema than this foliolab knows is refused with the way out.
  ASSERT_TRUE(index->db().exec("PRAGMA user_version = 99").ok());
  auto newer = ResultIndex::open(root);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("index rebuild"), std::string::npos);
  fs::remove_all(root);
}

TEST(ResultIndex, RebuildFromRunFiles) {
  const fs::path root = fresh_test_dir("foliolab-index-rebuild");
  for (const char* stamp : {"20261129T010000Z", "20261130T010000Z"}) {
    auto store = ResultStore::open(session(root, stamp));
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->save_record(run_of("4K", 16386)).ok());
    ASSERT_TRUE(store->save_record(run_of("64K mTHP", 1025)).ok());
  }
  // A damaged run file is reported and skipped; a garbage index is replaced.
  ASSERT_TRUE(write_file_atomic(root / "quickstart/20261130T010000Z/runs/bad/run.json", "{").ok());
  ASSERT_TRUE(write_file_atomic(root / kIndexFile, "not a database at all").ok());
  std::vector<std::string> warnings;
  auto n = rebuild_index(root, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 4);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[1].find("bad/run.json"), std::string::npos);
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->find_runs({})->size(), 4u);
  // Rebuilding again gives the same index, not duplicates.
  ASSERT_EQ(*rebuild_index(root, [](const std::string&) {}), 4);
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM runs"), 4);
  fs::remove_all(root);
}

}  // namespace
}  // namespace foliolab
