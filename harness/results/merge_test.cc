#include "results/merge.h"

#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "results/index.h"
#include "results/index_rebuild.h"
#include "results/store.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

RunRecord run_on(const std::string& knobs, const std::string& host,
                 const std::string& status = "ok",
                 const std::string& finished = "2026-11-30T05:14:40Z",
                 const std::string& experiment = "quickstart") {
  RunRecord r = fake_record({.experiment = experiment,
                             .knobs = knobs,
                             .metrics = {{"faults", {1, 2, 3}}},
                             .status = status});
  r.provenance.host.hostname = host;
  r.finished = finished;
  r.artifacts.console_log = "console.log";
  return r;
}

const std::vector<std::string> kKnobs = {"A", "B", "C", "D"};

std::vector<std::string> ids_of(const std::vector<std::string>& knobs) {
  std::vector<std::string> ids;
  for (const auto& k : knobs) ids.push_back(run_on(k, "").id.run_id);
  return ids;
}

// A session under <root>/<experiment>/ that ran `records` as `shard` of a plan of `plan_knobs`.
fs::path make_session(const fs::path& root, const std::vector<RunRecord>& records,
                      std::optional<Shard> shard,
                      const std::vector<std::string>& plan_knobs = kKnobs) {
  auto store =
      ResultStore::create(root, records.empty() ? "quickstart" : records.front().id.experiment);
  EXPECT_TRUE(store.ok());
  StoredPlan plan{.experiment = records.empty() ? "quickstart" : records.front().id.experiment,
                  .hash = plan_hash(ids_of(plan_knobs)),
                  .plan_runs = static_cast<int>(plan_knobs.size()),
                  .shard = shard};
  for (const RunRecord& r : records) {
    plan.runs.push_back(r.id);
    EXPECT_TRUE(store->save_record(r).ok());
    EXPECT_TRUE(write_file_atomic(store->run_dir(r.id.run_id) / "console.log",
                                  "console of " + r.id.run_id + " on " + r.provenance.host.hostname)
                    .ok());
  }
  EXPECT_TRUE(store->save_plan(plan).ok());
  EXPECT_TRUE(store->save_text("experiment.yaml", "name: " + plan.experiment + "\n").ok());
  return store->dir();
}

// Every file under `dir` with its content.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[e.path().string()] = *read_file(e.path());
  }
  return out;
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("foliolab-merge");
    shard1_ =
        make_session(dir_ / "shard-1", {run_on("A", "node1"), run_on("B", "node1")}, Shard{1, 2});
    shard2_ =
        make_session(dir_ / "shard-2", {run_on("C", "node2"), run_on("D", "node2")}, Shard{2, 2});
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, shard1_, shard2_;
};

TEST_F(MergeTest, ShardsBecomeOneSessionThatKeepsEachRunsHost) {
  auto sessions = find_sessions({dir_ / "shard-1", dir_ / "shard-2"});
  ASSERT_TRUE(sessions.ok()) << sessions.error().message;
  ASSERT_EQ(sessions->size(), 2u);
  auto m = merge_sessions(*sessions, dir_ / "merged");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->runs, 4);
  EXPECT_EQ(m->plan_runs, 4);
  EXPECT_EQ(m->experiment, "quickstart");
  EXPECT_EQ(m->plan_hash, plan_hash(ids_of(kKnobs)));
  EXPECT_TRUE(m->missing.empty());
  EXPECT_TRUE(m->conflicts.empty());
  EXPECT_EQ(m->identical_duplicates, 0);
  EXPECT_EQ(m->runs_per_host, (std::map<std::string, int>{{"node1", 2}, {"node2", 2}}));
  EXPECT_EQ(m->session.parent_path(), dir_ / "merged" / "quickstart");

  auto store = ResultStore::open(m->session);
  ASSERT_TRUE(store.ok());
  auto records = store->load_all();
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 4u);
  std::map<std::string, std::string> host_of;
  for (const RunRecord& r : *records) host_of[r.id.knob_set.name] = r.provenance.host.hostname;
  EXPECT_EQ(host_of, (std::map<std::string, std::string>{
                         {"A", "node1"}, {"B", "node1"}, {"C", "node2"}, {"D", "node2"}}));
  const std::string c_id = run_on("C", "").id.run_id;
  EXPECT_EQ(*read_file(store->run_dir(c_id) / "console.log"), "console of " + c_id + " on node2");
  EXPECT_EQ(*read_file(store->dir() / "experiment.yaml"), "name: quickstart\n");

  auto plan = store->load_plan();
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_FALSE(plan->shard);
  EXPECT_EQ(plan->hash, m->plan_hash);
  EXPECT_EQ(plan->runs.size(), 4u);
  ASSERT_EQ(plan->merged_from.size(), 2u);
  EXPECT_EQ(plan->merged_from[0].session, shard1_.string());
  EXPECT_EQ(plan->merged_from[0].shard, "1/2");
  EXPECT_EQ(plan->merged_from[0].hosts, std::vector<std::string>{"node1"});
  EXPECT_EQ(plan->merged_from[1].runs, 2);
  EXPECT_EQ(store->planned_archs(), std::vector<std::string>{"x86_64"});

  // Indexed like any session.
  auto n = rebuild_index(dir_ / "merged", [](const std::string& w) { ADD_FAILURE() << w; });
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 4);
  // No half-assembled directory is left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "merged" / "quickstart"),
                          fs::directory_iterator()),
            1);
}

TEST_F(MergeTest, InputsAreOnlyRead) {
  const auto before1 = snapshot(dir_ / "shard-1"), before2 = snapshot(dir_ / "shard-2");
  auto m = merge_sessions({shard1_, shard2_}, dir_ / "shard-1");  // even into an input's root
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(snapshot(dir_ / "shard-2"), before2);
  for (const auto& [path, text] : before1) EXPECT_EQ(*read_file(path), text) << path;
  EXPECT_NE(m->session, shard1_);
}

TEST_F(MergeTest, IdenticalDuplicatesAreKeptOnce) {
  // A copy of shard 1's session (a job that was re-queued after its results were copied).
  const fs::path copy = dir_ / "copy" / "quickstart" / "20990101T000000Z";
  fs::create_directories(copy.parent_path());
  fs::copy(shard1_, copy, fs::copy_options::recursive);
  auto sessions = find_sessions({dir_ / "shard-1", dir_ / "shard-2", dir_ / "copy"});
  ASSERT_TRUE(sessions.ok());
  auto m = merge_sessions(*sessions, dir_ / "merged");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->runs, 4);
  EXPECT_EQ(m->identical_duplicates, 2);
  EXPECT_TRUE(m->conflicts.empty());
}

TEST_F(MergeTest, DifferingDuplicatesAreReportedAndResolvedOkFirstThenLatest) {
  // A retry on node3: run A failed there (the ok one from node1 stays), run B ran again later.
  const fs::path retry = make_session(dir_ / "retry",
                                      {run_on("A", "node3", "failed", "2026-11-30T09:00:00Z"),
                                       run_on("B", "node3", "ok", "2026-11-30T09:00:00Z")},
                                      Shard{1, 2});
  auto m = merge_sessions({retry, shard1_, shard2_}, dir_ / "merged");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->runs, 4);
  ASSERT_EQ(m->conflicts.size(), 2u);
  const std::string a_id = run_on("A", "").id.run_id, b_id = run_on("B", "").id.run_id;
  EXPECT_EQ(m->conflicts[0].rfind(
                a_id + ": records differ; kept " + shard1_.string() + " (ok, host node1", 0),
            0u)
      << m->conflicts[0];
  EXPECT_EQ(m->conflicts[1].rfind(
                b_id + ": records differ; kept " + retry.string() + " (ok, host node3", 0),
            0u)
      << m->conflicts[1];
  EXPECT_EQ(m->runs_per_host,
            (std::map<std::string, int>{{"node1", 1}, {"node2", 2}, {"node3", 1}}));
  // The same inputs in another order give the same choice.
  auto again = merge_sessions({shard2_, shard1_, retry}, dir_ / "merged");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->conflicts, m->conflicts);
}

TEST_F(MergeTest, RefusesDifferentExperimentsNamingBoth) {
  const fs::path other = make_session(
      dir_ / "other", {run_on("A", "node1", "ok", "2026-11-30T05:14:40Z", "other-exp")},
      std::nullopt, {"A"});
  auto m = merge_sessions({shard1_, other}, dir_ / "merged");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, "cannot merge different experiments: " + shard1_.string() +
                                   " is 'quickstart', " + other.string() + " is 'other-exp'");
  EXPECT_FALSE(fs::exists(dir_ / "merged"));
}

TEST_F(MergeTest, RefusesDifferentPlansNamingBoth) {
  const fs::path other =
      make_session(dir_ / "other", {run_on("A", "node1")}, std::nullopt, {"A", "B", "C"});
  auto m = merge_sessions({shard1_, other}, dir_ / "merged");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find(
                "cannot merge different plans of 'quickstart': " + shard1_.string() + " ran plan " +
                plan_hash(ids_of(kKnobs)) + " (4 runs), " + other.string() + " ran plan " +
                plan_hash(ids_of({"A", "B", "C"})) + " (3 runs)"),
            std::string::npos)
      << m.error().message;
}

TEST_F(MergeTest, AMissingShardLeavesTheMergeShortAndSaysSo) {
  auto m = merge_sessions({shard1_}, dir_ / "merged");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->runs, 2);
  EXPECT_EQ(m->plan_runs, 4);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_EQ(m->notes[0], "2 more planned run(s) belong to shards not among the inputs");
}

TEST_F(MergeTest, APlannedRunWithoutRecordIsMissing) {
  const fs::path partial = make_session(dir_ / "partial", {run_on("C", "node2")}, Shard{2, 2});
  // Its plan says it was to run C and D; only C has a record.
  auto store = ResultStore::open(partial);
  auto plan = store->load_plan();
  plan->runs.push_back(run_on("D", "").id);
  ASSERT_TRUE(store->save_plan(*plan).ok());
  auto m = merge_sessions({shard1_, partial}, dir_ / "merged");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->runs, 3);
  EXPECT_EQ(m->missing, std::vector<std::string>{run_on("D", "").id.run_id});
}

TEST_F(MergeTest, FindSessionsTakesSessionsAndRootsAndRejectsTheRest) {
  auto both = find_sessions({shard1_, dir_ / "shard-1", dir_ / "shard-2"});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, (std::vector<fs::path>{shard1_, shard2_}));
  auto missing = find_sessions({dir_ / "nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, (dir_ / "nope").string() + ": no such directory");
  fs::create_directories(dir_ / "empty");
  auto empty = find_sessions({dir_ / "empty"});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message,
            (dir_ / "empty").string() + ": no foliolab results session in it");
}

TEST_F(MergeTest, APlanOfAnOlderSchemaGetsTheHashOfItsRuns) {
  auto store = ResultStore::open(shard1_);
  auto plan = store->load_plan();
  ASSERT_TRUE(plan.ok());
  // Schema 2 had only the runs.
  nlohmann::json j = nlohmann::json::parse(*read_file(store->dir() / "plan.json"));
  const nlohmann::json v2 = {{"schema", 2}, {"runs", j.at("runs")}};
  ASSERT_TRUE(store->save_text("plan.json", v2.dump()).ok());
  auto old = store->load_plan();
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->hash, plan_hash(ids_of({"A", "B"})));
  EXPECT_EQ(old->plan_runs, 2);
  EXPECT_EQ(old->experiment, "quickstart");
  EXPECT_FALSE(old->shard);
}

}  // namespace
}  // namespace foliolab
