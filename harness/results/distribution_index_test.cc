// Distribution metrics in the index (schema 8): a row per run, distribution and rep in
// `distributions` with its quantiles and buckets, and the derived scalars in `samples`, so that
// `samples()` (history, gate) reads `<name>.p99` like any metric. Both engines: SQLite here,
// PostgreSQL in the E2E-prefixed test (a real server from Debian's postgresql).
#include <gtest/gtest.h>

#include "results/index.h"
#include "testing/postgres_server.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

RunRecord run_with_latency() {
  FakeRun f;
  f.metrics = {{"faults", {16386, 16386}}};
  for (int rep = 0; rep < 2; ++rep) {
    DistributionBuilder b("ns");
    for (int v = 1; v <= 200; ++v) b.add(v * (rep + 1));
    f.distributions["kprobe.handle_mm_fault.latency_ns"].push_back(b.take());
  }
  return fake_record(f);
}

void expect_distributions_indexed(ResultIndex& index) {
  bool inserted = false;
  auto session = index.session_row("quickstart/20261207T000000Z", &inserted);
  ASSERT_TRUE(session.ok()) << session.error().message;
  ASSERT_TRUE(index.insert_runs(*session, {run_with_latency()}).ok());
  auto p99 = index.samples("kprobe.handle_mm_fault.latency_ns.p99", {});
  ASSERT_TRUE(p99.ok()) << p99.error().message;
  ASSERT_EQ(p99->size(), 2u);
  EXPECT_EQ((*p99)[0].value, 198);  // rank 198 of 1..200
  EXPECT_EQ((*p99)[1].value, 396);
  auto rows =
      index.db().query_int("SELECT COUNT(*) FROM distributions WHERE p50 = 100 AND count = 200");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(*rows, 1);
  auto buckets = index.db().query_int(
      "SELECT COUNT(*) FROM distributions WHERE buckets LIKE '[[1.0,1.0,1],%' AND rep = 0");
  ASSERT_TRUE(buckets.ok()) << buckets.error().message;
  EXPECT_EQ(*buckets, 1);
}

TEST(DistributionIndex, SqliteKeepsQuantilesAndBuckets) {
  const fs::path root = fresh_test_dir("foliolab-index-dist");
  auto index = ResultIndex::open(root);
  ASSERT_TRUE(index.ok()) << index.error().message;
  expect_distributions_indexed(*index);
  fs::remove_all(root);
}

TEST(E2EDistributionIndex, PostgresKeepsQuantilesAndBuckets) {
  if (postgres_bin_dir().empty()) GTEST_SKIP() << "postgresql is not installed";
  auto server = PostgresServer::start(fresh_test_dir("foliolab-pg-dist"));
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto url = (*server)->database("dists");
  ASSERT_TRUE(url.ok()) << url.error().message;
  auto index = ResultIndex::open_url(*url);
  ASSERT_TRUE(index.ok()) << index.error().message;
  expect_distributions_indexed(*index);
}

}  // namespace
}  // namespace foliolab
