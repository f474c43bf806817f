// The `census` record (protocol/census_record.h) read alone and as part of a run's stream: its
// totals become census.* count metrics of the rep, its mappings are kept, bad values are named.
#include "protocol/census_record.h"

#include <gtest/gtest.h>

#include "catalog/census_metrics.h"
#include "catalog/metric_catalog.h"
#include "protocol/run_report.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

// What images/agent/census_proc.c writes for fault 64M at 64K mTHP (the e2e test's numbers).
KeyValues census_kv(const std::string& status = "ok") {
  return {{"rep", "0"},
          {"index", "0"},
          {"pids", "73"},
          {"status", status},
          {"page_kb", "4"},
          {"pmd_kb", "2048"},
          {"cont_kb", "0"},
          {"anon.4K.folios", "9"},
          {"anon.4K.kb", "36"},
          {"anon.64K.folios", "1024"},
          {"anon.64K.kb", "65536"},
          {"anon.2M.folios", "0"},
          {"anon.2M.kb", "0"},
          {"anon.2M.pmd_mapped", "0"},
          {"anon.partial", "0"},
          {"anon.partial_kb", "0"},
          {"zero_kb", "0"},
          {"rss_kb", "65572"},
          {"counted_kb", "65572"},
          {"vma.0", "73 7f0000000000-7f0004000000 rw-p 65536 65536 anon.64K=1024/65536|"},
          {"vma.1", "73 400000-401000 r--p 4 4 file.4K=1/4|/workloads/fault"}};
}

TEST(CensusRecord, TotalsAreCountMetrics) {
  auto c = parse_census_record(census_kv());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->pids, "73");
  EXPECT_EQ(c->pmd_kb, 2048);
  EXPECT_DOUBLE_EQ(c->metrics.at("census.anon.64K.folios"), 1024);
  EXPECT_DOUBLE_EQ(c->metrics.at("census.anon.4K.kb"), 36);
  EXPECT_DOUBLE_EQ(c->metrics.at("census.rss_kb"), 65572);
  EXPECT_FALSE(c->metrics.contains("census.pids"));
  ASSERT_EQ(c->mappings.size(), 2u);
  EXPECT_EQ(c->mappings[0].start, 0x7f0000000000u);
  EXPECT_EQ(c->mappings[0].rss_kb, 65536);
  EXPECT_EQ(c->mappings[0].detail, "anon.64K=1024/65536");
  EXPECT_EQ(c->mappings[0].name, "");
  EXPECT_EQ(c->mappings[1].name, "/workloads/fault");
  const MetricInfo folios = metric_info("census.anon.64K.folios");
  EXPECT_EQ(folios.kind, MetricKind::kCount);
  EXPECT_EQ(folios.unit, "folios");
  EXPECT_EQ(folios.threshold.abs, 0);  // large folios are exact
  EXPECT_EQ(metric_info("census.anon.4K.kb").unit, "kB");
  EXPECT_TRUE(metric_info("census.rss_kb").known);
}

TEST(CensusRecord, BadInputIsNamed) {
  KeyValues kv = census_kv("failed");
  auto failed = parse_census_record(kv);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("census of pids 73"), std::string::npos);
  kv = census_kv();
  kv.emplace_back("anon.64K.folios", "-3");
  EXPECT_NE(parse_census_record(kv).error().message.find("anon.64K.folios is not a count"),
            std::string::npos);
  kv = census_kv();
  kv.emplace_back("anon.64K.weird", "3");
  EXPECT_NE(parse_census_record(kv).error().message.find("'census.anon.64K.weird' is no census"),
            std::string::npos);
  kv = census_kv();
  kv.emplace_back("vma.2", "73 nonsense|x");
  EXPECT_NE(parse_census_record(kv).error().message.find("vma.2 is not"), std::string::npos);
}

TEST(CensusRecord, MetricNamesThePlanKnows) {
  for (const char* ok : {"anon.64K.folios", "shmem.2M.pmd_mapped", "file.4K.kb", "anon.partial",
                         "anon.cont_pte_blocks", "rss_kb", "zero_kb"}) {
    EXPECT_TRUE(check_census_metric(ok).ok()) << ok;
  }
  for (const char* bad : {"anon", "anon.64kB.folios", "heap.4K.kb", "anon.64K", "rss"}) {
    EXPECT_FALSE(check_census_metric(bad).ok()) << bad;
  }
  EXPECT_EQ(census_size_name(64), "64K");
  EXPECT_EQ(census_size_name(2048), "2M");
}

// In a run's stream: the first census of a rep gives its metrics, a second adds only mappings;
// a failed census fails the run.
TEST(CensusRecord, InARunReport) {
  StreamBuilder b;
  KeyValues second = census_kv();
  second[1].second = "1";
  second[7].second = "5";  // anon.4K.folios of a later peak: not the rep's metric
  b.prologue().kv("census", census_kv()).kv("census", second).rep(0, 100).done();
  RunReport r = parse_run_report(b.bytes(), 1);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_DOUBLE_EQ(r.reps[0].metrics.at("census.anon.64K.folios"), 1024);
  EXPECT_DOUBLE_EQ(r.reps[0].metrics.at("census.anon.4K.folios"), 9);
  EXPECT_EQ(r.reps[0].census.size(), 4u);

  StreamBuilder bad;
  bad.prologue().kv("census", census_kv("failed")).rep(0, 100).done();
  RunReport failed = parse_run_report(bad.bytes(), 1);
  EXPECT_FALSE(failed.ok);
  EXPECT_NE(failed.reason.find("census of pids 73"), std::string::npos) << failed.reason;
}

}  // namespace
}  // namespace foliolab
