// A push stored on either engine in a few statements, not one a row: a 2,000-run session is
// some 32,000 rows, and on PostgreSQL each statement is a round trip (issue 55: 101.5 s for
// 2,004 runs). Every row still arrives, and a push stays all-or-nothing.
#include "results/pushed_sessions.h"

#include <gtest/gtest.h>

#include <string>

#include "results/record_codec.h"
#include "testing/lab_fixture.h"
#include "testing/temp_dir.h"

namespace foliolab {
namespace {

constexpr int kRuns = 2000;

SessionBundle big_session(const std::string& stamp) {
  SessionBundle b{.experiment = "big", .stamp = stamp};
  for (int i = 0; i < kRuns; ++i) {
    FakeRun f;
    f.workload = "w" + std::to_string(i);
    f.metrics = {{"faults", {1.0 * i, 2.0, 3.0}}, {"cpu_s", {0.01, 0.02, 0.03}}};
    f.deltas = {{"mthp.64kB.anon_fault_alloc", {1, 2, 3}}};
    RunRecord r = fake_record(f);
    b.files["runs/" + r.id.run_id + "/run.json"] = encode_record(r).dump();
    b.records.push_back(std::move(r));
  }
  return b;
}

class PushedSessions : public ::testing::TestWithParam<LabEngine> {
 protected:
  ScopedTestDir dir_{"foliolab-pushed-sessions"};
  LabDatabase db_{GetParam(), dir_.path()};
};

TEST_P(PushedSessions, ABigPushIsAFewStatementsAndEveryRow) {
  ASSERT_EQ(db_.error(), "");
  auto index = ResultIndex::open_url(db_.url());
  ASSERT_TRUE(index.ok()) << index.error().message;
  const SessionBundle b = big_session("20261207T120000Z");
  const int64_t before = index->db().statements_executed();
  auto out = store_pushed_session(*index, b, "test");
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->stored);
  const int64_t statements = index->db().statements_executed() - before;
  // Rows: 2,000 runs, 18,000 samples and deltas, 4,000 knobs, 2,000 files, provenance. One
  // statement a row was some 32,000.
  EXPECT_LT(statements, 60) << statements << " statements for a " << kRuns << "-run push";
  auto count = [&](const std::string& sql) { return *index->db().query_int(sql); };
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), kRuns);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples"), kRuns * 6);
  EXPECT_EQ(count("SELECT COUNT(*) FROM counter_deltas"), kRuns * 3);
  EXPECT_EQ(count("SELECT COUNT(*) FROM knobs"), kRuns * 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM session_files"), kRuns);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.workload = "
                  "'w1999' AND s.metric = 'faults' AND s.rep = 0 AND s.value = 1999"),
            1);
  auto back = load_pushed_session(*index, out->key);
  ASSERT_TRUE(back.ok() && *back) << out->key;
  EXPECT_EQ((*back)->digest(), b.digest());
}

TEST_P(PushedSessions, APushThatFailsHalfwayLeavesNothing) {
  ASSERT_EQ(db_.error(), "");
  auto index = ResultIndex::open_url(db_.url());
  ASSERT_TRUE(index.ok()) << index.error().message;
  SessionBundle b = big_session("20261207T130000Z");
  // Two values for one sample's key: the samples' batch fails after the runs went in.
  b.records.back().reps[0].metrics["faults"] = 1;
  b.records.back().reps[1].rep = 0;
  auto out = store_pushed_session(*index, b, "test");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM runs"), 0);
  EXPECT_EQ(*index->db().query_int("SELECT COUNT(*) FROM sessions"), 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, PushedSessions,
                         ::testing::Values(LabEngine::kSqlite, LabEngine::kPostgres),
                         lab_engine_name);

}  // namespace
}  // namespace foliolab
