#include "results/finding_index.h"

#include <gtest/gtest.h>

#include "results/index_rebuild.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

fs::path indexed_session(ResultIndex& index, const std::string& stamp, double faults) {
  const fs::path dir = index.root() / "quickstart" / stamp;
  fs::create_directories(dir / "runs");
  FakeRun f;
  f.metrics = {{"faults", {faults, faults}}};
  EXPECT_TRUE(index.add_run(dir, fake_record(f)).ok());
  return dir;
}

IndexedChangePoint faults_step() {
  return {.experiment = "quickstart",
          .kernel = "6.12-mthp-vmstat",
          .arch = "x86_64",
          .knob_set = "4K",
          .workload = "fault",
          .metric = "faults",
          .before_session = "quickstart/20261129T010000Z",
          .after_session = "quickstart/20261130T010000Z",
          .before = 16386,
          .after = 1025,
          .method = "count step"};
}

TEST(FindingIndex, ChangePointsJoinToTheRunsOnBothSides) {
  const fs::path root = fresh_test_dir("foliolab-finding-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  indexed_session(*index, "20261129T010000Z", 16386);
  indexed_session(*index, "20261130T010000Z", 1025);
  ASSERT_TRUE(add_change_point(*index, faults_step()).ok());
  IndexedChangePoint again = faults_step();
  again.after = 1024;  // found again (history appended to): replaced, not duplicated
  ASSERT_TRUE(add_change_point(*index, again).ok());
  SqlDb& db = index->db();
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM change_points"), 1);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM change_points WHERE p_value IS NULL"), 1);
  auto sides = db.prepare(
      "SELECT sb.value, sa.value, cp.after_value FROM change_points cp "
      "JOIN sessions b ON b.path = cp.before_session JOIN runs rb ON rb.session_id = b.id "
      "JOIN samples sb ON sb.run = rb.id AND sb.metric = cp.metric AND sb.rep = 0 "
      "JOIN sessions a ON a.path = cp.after_session JOIN runs ra ON ra.session_id = a.id "
      "JOIN samples sa ON sa.run = ra.id AND sa.metric = cp.metric AND sa.rep = 0");
  ASSERT_TRUE(sides.ok()) << sides.error().message;
  ASSERT_TRUE(*sides->step());
  EXPECT_EQ(sides->column_double(0), 16386);
  EXPECT_EQ(sides->column_double(1), 1025);
  EXPECT_EQ(sides->column_double(2), 1024);
  IndexedChangePoint timing = faults_step();
  timing.metric = "sys_s";
  timing.method = "t-test split";
  timing.p = 0.0004;
  ASSERT_TRUE(add_change_point(*index, timing).ok());
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM change_points"), 2);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM change_points WHERE p_value < 0.001"), 1);
  fs::remove_all(root);
}

TEST(FindingIndex, KnownIssueMatchesPerSessionIssueAndCase) {
  const fs::path root = fresh_test_dir("foliolab-finding-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  indexed_session(*index, "20261130T010000Z", 1025);
  IndexedKnownIssueMatch m{.session = "quickstart/20261130T010000Z",
                           .issue = "thp-shrinker-2026-11",
                           .case_name = "faults x86_64 4K",
                           .outcome = "known",
                           .url = "https://lore.kernel.org/linux-mm/x",
                           .expires = "2027-01-31"};
  ASSERT_TRUE(add_known_issue_match(*index, m).ok());
  m.outcome = "fixed?";  // the same case judged again
  ASSERT_TRUE(add_known_issue_match(*index, m).ok());
  m.case_name = "faults arm64 4K";
  ASSERT_TRUE(add_known_issue_match(*index, m).ok());
  SqlDb& db = index->db();
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches"), 2);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches WHERE outcome = 'fixed?'"), 2);
  EXPECT_EQ(
      *db.query_int("SELECT COUNT(*) FROM known_issue_matches k "
                    "JOIN sessions s ON s.path = k.session JOIN runs r ON r.session_id = s.id"),
      2);
  // `index rebuild` keeps what the sessions' gate.json files say, nothing else.
  ASSERT_TRUE(rebuild_index(root, [](const std::string& w) { ADD_FAILURE() << w; }).ok());
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches"), 0);
  fs::remove_all(root);
}

// What the gate wrote (the shape of report/json.cc's gate_json) is what the index holds, and
// `index rebuild` restores it.
TEST(FindingIndex, GateFilesAreTheKnownIssueMatchesAndRebuildRestoresThem) {
  const fs::path root = fresh_test_dir("foliolab-finding-index");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  indexed_session(*index, "20261130T010000Z", 1025);
  ASSERT_TRUE(write_file_atomic(root / "quickstart/20261130T010000Z/gate.json", R"({
  "schema": 2,
  "cases": [
    {"rule": "faults", "group": "x86_64 · 4K", "metric": "faults", "outcome": "known",
     "known_issue": {"id": "thp-shrinker", "url": "https://lore.kernel.org/x",
                     "expires": "2027-01-31"}},
    {"rule": "faults", "group": "arm64 · 4K", "metric": "faults", "outcome": "pass",
     "kernel": "6.12", "arch": "arm64", "knobs": "4K", "workload": "fault", "rel_change": 0.01}
  ],
  "known_issue_notes": [{"id": "old-one", "url": "u", "expires": "2026-11-01",
                         "state": "expired"}]
})")
                  .ok());
  // A damaged one is a warning, and takes nothing of the others.
  ASSERT_TRUE(write_file_atomic(root / "quickstart/20261201T010000Z/gate.json", "{").ok());
  SqlDb& db = index->db();
  ASSERT_TRUE(index_gate_file(db, root, "quickstart/20261130T010000Z").ok());
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches"), 2);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches WHERE issue = 'thp-shrinker' "
                          "AND case_name = 'faults · x86_64 · 4K' AND outcome = 'known' AND "
                          "expires = '2027-01-31'"),
            1);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches WHERE issue = 'old-one' AND "
                          "case_name = '' AND outcome = 'expired'"),
            1);
  auto cases = gate_cases_of(*index, "faults");
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  ASSERT_EQ(cases->size(), 2u);
  EXPECT_EQ((*cases)[0].group, "arm64 · 4K");  // by session, rule, group
  EXPECT_EQ((*cases)[0].arch, "arm64");
  EXPECT_EQ((*cases)[0].knobs, "4K");
  EXPECT_EQ((*cases)[0].outcome, "pass");
  EXPECT_EQ((*cases)[0].rel_change, 0.01);
  EXPECT_EQ((*cases)[1].outcome, "known");
  EXPECT_FALSE((*cases)[1].rel_change.has_value());
  EXPECT_TRUE(gate_cases_of(*index, "cpu_s")->empty());
  std::vector<std::string> warnings;
  ASSERT_TRUE(rebuild_index(root, [&](const std::string& w) { warnings.push_back(w); }).ok());
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches"), 2);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM gate_cases"), 2);
  // Without its gate.json a session's cases go.
  fs::remove(root / "quickstart/20261130T010000Z/gate.json");
  ASSERT_TRUE(index_gate_file(db, root, "quickstart/20261130T010000Z").ok());
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM gate_cases"), 0);
  EXPECT_EQ(*db.query_int("SELECT COUNT(*) FROM known_issue_matches"), 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("20261201T010000Z/gate.json"), std::string::npos) << warnings[0];
  fs::remove_all(root);
}

// An index of schema 4 gets the two tables in place.
TEST(FindingIndex, MigratesFromSchema4) {
  const fs::path root = fresh_test_dir("foliolab-finding-index");
  {
    auto db = SqlDb::open((root / kIndexFile).string(), 1000);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(migrate_index(*db, 4).ok());
    EXPECT_FALSE(db->prepare("SELECT * FROM change_points").ok());
    EXPECT_TRUE(db->prepare("SELECT * FROM bisections").ok());
  }
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(*index->db().query_int("PRAGMA user_version"), kIndexSchema);
  EXPECT_TRUE(add_change_point(*index, faults_step()).ok());
  fs::remove_all(root);
}

}  // namespace
}  // namespace foliolab
