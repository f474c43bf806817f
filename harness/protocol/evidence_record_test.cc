// Kernel evidence between host and guest (docs/guest-protocol.md `event`, `kprobe`,
// `function_profile` lines; `evidence`, `function-profile` records): the job lines, the counts
// read back as count metrics beside the counter deltas, and untrusted values refused.
#include "protocol/evidence_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/metric_catalog.h"
#include "protocol/job.h"
#include "protocol/run_report.h"
#include "testing/minimal_experiment.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

TEST(EvidenceRecord, TheJobNamesEveryEventKprobeAndTheProfile) {
  auto exp = parse_minimal(R"(evidence:
  events: ["kmem:mm_page_alloc", {event: "kmem:mm_page_alloc", by: order}, "thp:*"]
  kprobes: [folio_zero_user]
  function_profile: {top: 20}
)");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  foliolab::Run run{.id = "r"};
  auto job = render_job(*exp, run);
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_THAT(*job, HasSubstr("event kmem:mm_page_alloc\n"
                              "event kmem:mm_page_alloc order\n"
                              "event thp:*\n"
                              "kprobe folio_zero_user\n"
                              "function_profile 20\n"
                              "workload fault\n"));
}

TEST(EvidenceRecord, CountsAreCountMetricsBesideTheDeltasAndTheProfileIsKeptWhole) {
  StreamBuilder b;
  b.prologue()
      .rep(0, 100)
      .kv("function-profile", {{"rep", "0"}, {"handle_mm_fault", "16400"}, {"do_wp_page", "3"}})
      .kv("evidence", {{"rep", "0"},
                       {"event.kmem:mm_page_alloc[order=4]", "1024"},
                       {"event.kmem:mm_page_alloc", "1090"},
                       {"kprobe.folio_zero_user", "1024"},
                       {"func.handle_mm_fault", "16400"}})
      .done();
  RunReport r = parse_run_report(b.bytes(), 1);
  ASSERT_TRUE(r.ok) << r.reason;
  const RepResult& rep = r.reps.at(0);
  EXPECT_EQ(rep.deltas.at("event.kmem:mm_page_alloc[order=4]"), 1024);
  EXPECT_EQ(rep.deltas.at("event.kmem:mm_page_alloc"), 1090);
  EXPECT_EQ(rep.deltas.at("kprobe.folio_zero_user"), 1024);
  EXPECT_EQ(rep.deltas.at("func.handle_mm_fault"), 16400);
  EXPECT_EQ(rep.deltas.at("vmstat.pgfault"), 16386);  // the counters' deltas stay
  EXPECT_EQ(rep.function_profile, "handle_mm_fault 16400\ndo_wp_page 3\n");
  for (const char* m : {"event.kmem:mm_page_alloc[order=4]", "kprobe.folio_zero_user"}) {
    const MetricInfo info = metric_info(m);
    EXPECT_EQ(info.kind, MetricKind::kCount) << m;
    EXPECT_TRUE(info.known) << m;
    // The workload's own processes only; address-space randomization moves a few page tables.
    EXPECT_EQ(info.threshold.abs, 8) << m;
    EXPECT_EQ(info.threshold.rel, 0.01) << m;
  }
  EXPECT_EQ(metric_info("func.handle_mm_fault").threshold.rel, 0.5);  // system-wide profiler
}

TEST(EvidenceRecord, UntrustedNamesAndValuesAreProblems) {
  StreamBuilder b;
  b.prologue()
      .rep(0, 100)
      .kv("evidence", {{"rep", "0"},
                       {"vmstat.pgfault", "1"},
                       {"event.kmem:x", "-1"},
                       {"kprobe.a b", "3"},
                       {"kprobe.ok", "7"}})
      .done();
  RunReport r = parse_run_report(b.bytes(), 1);
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.problems.size(), 3u);
  EXPECT_THAT(r.problems[0], HasSubstr("not an evidence count: vmstat.pgfault = \"1\""));
  EXPECT_THAT(r.problems[1], HasSubstr("event.kmem:x = \"-1\""));
  EXPECT_EQ(r.reps.at(0).deltas.at("kprobe.ok"), 7);
  EXPECT_EQ(r.reps.at(0).deltas.at("vmstat.pgfault"), 16386);  // the counter's, not the record's
  EXPECT_TRUE(is_evidence_metric("event.huge_memory:mm_khugepaged_scan_pmd"));
  EXPECT_FALSE(is_evidence_metric("event.x\ty"));
}

}  // namespace
}  // namespace foliolab
