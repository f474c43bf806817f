#include "protocol/run_report.h"

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "protocol/output_adapter.h"
#include "protocol/record_stream.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

TEST(RunReport, GoodRun) {
  StreamBuilder b;
  b.prologue().rep(0, 36400.5).rep(1, 36500).done();
  RunReport r = parse_run_report(b.bytes(), 2);
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.reason, "");
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  EXPECT_EQ(r.hello.release, "6.12.0-foliolab");
  EXPECT_EQ(r.hello.page_size, 4096);
  EXPECT_EQ(r.hello.nr_cpus, 2);
  EXPECT_EQ(r.hello.mem_total_kb, 1000000);
  EXPECT_EQ(r.hello.cmdline, "console=ttyS0 panic=-1");
  ASSERT_EQ(r.knobs_initial.size(), 2u);
  EXPECT_EQ(r.knobs_initial[0],
            (std::pair<std::string, std::string>{"enabled", "[madvise] never"}));
  EXPECT_EQ(r.knobs_final[0].second, "[always]");
  ASSERT_EQ(r.knob_sets.size(), 1u);
  EXPECT_EQ(r.knob_sets[0].readback, "always");
  ASSERT_EQ(r.reps.size(), 2u);
  const RepResult& rep1 = r.reps[1];
  EXPECT_EQ(rep1.rep, 1);
  EXPECT_EQ(rep1.deltas.at("vmstat.pgfault"), 16387);
  EXPECT_EQ(rep1.deltas.at("vmstat.thp_fault_alloc"), 32);
  EXPECT_EQ(rep1.deltas.at("mthp.64kB.anon_fault_alloc"), 64);
  EXPECT_EQ(rep1.deltas.at("meminfo.AnonHugePages"), 32 * 2048);
  EXPECT_EQ(rep1.deltas.size(), 4u);
  EXPECT_EQ(rep1.counters_before.at("vmstat.pgfault"), 1000);
  EXPECT_EQ(rep1.wall_ns, 450000000);
  EXPECT_EQ(rep1.workload, "fault");
  EXPECT_DOUBLE_EQ(r.reps[0].metrics.at("faults_per_sec"), 36400.5);
  EXPECT_DOUBLE_EQ(rep1.metrics.at("pages"), 16384);
  EXPECT_FALSE(rep1.metrics.contains("name"));  // non-numeric field ignored
  EXPECT_TRUE(rep1.ok_marker);
  EXPECT_EQ(r.done_status, "ok");
}

TEST(RunReport, DeltasOnlyForCountersInBothSnapshots) {
  StreamBuilder b;
  b.prologue()
      .kv("counters", {{"rep", "0"}, {"phase", "before"}, {"vmstat.a", "5"}, {"vmstat.b", "1"}})
      .workload(0)
      .out("{\"pages\":1}\nFOLIOLAB-WORKLOAD-OK\n")
      .kv("counters", {{"rep", "0"}, {"phase", "after"}, {"vmstat.a", "3"}, {"vmstat.c", "9"}})
      .done();
  RunReport r = parse_run_report(b.bytes());
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.reps[0].deltas, (std::map<std::string, int64_t>{{"vmstat.a", -2}}));
}

TEST(RunReport, OneMetricsLineAndJunkIgnored) {
  RepResult rep;
  std::vector<std::string> problems;
  parse_workload_stdout(
      "starting\n{\"a\":1,\"b\":2.5,\"s\":\"x\",\"t\":true,\"o\":{\"n\":1}}\n[1,2]\n"
      "{not json\n" +
          std::string(100, '[') + "\nFOLIOLAB-WORKLOAD-OK",
      rep, problems);
  EXPECT_EQ(rep.metrics, (std::map<std::string, double>{{"a", 1}, {"b", 2.5}}));
  EXPECT_TRUE(rep.ok_marker);
  EXPECT_FALSE(rep.fail_marker);
  EXPECT_EQ(rep.violation, "");

  RepResult deep;
  problems.clear();
  parse_workload_stdout("{\"a\":" + std::string(100000, '[') + "\n", deep, problems);
  EXPECT_TRUE(deep.metrics.empty());
  EXPECT_EQ(problems.size(), 1u);
}

// The loose contract: two metric lines and two markers used to pass, the last value
// silently winning.
TEST(RunReport, TwoMetricLinesAndTwoMarkersFailTheRun) {
  StreamBuilder b;
  b.prologue()
      .counters(0, "before", 1000, 10)
      .workload(0)
      .out("{\"a\":1}\nFOLIOLAB-WORKLOAD-OK\n{\"a\":2}\nFOLIOLAB-WORKLOAD-OK\n")
      .counters(0, "after", 2000, 10)
      .done();
  RunReport r = parse_run_report(b.bytes(), 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "rep 0: workload fault output after FOLIOLAB-WORKLOAD-OK: \"{\"a\":2}\"");
}

TEST(RunReport, TapFailuresAreResultsNotFailures) {
  StreamBuilder b;
  b.prologue()
      .counters(0, "before", 1000, 10)
      .workload(0, /*exit_status=*/1)
      .out("TAP version 13\n1..3\nok 1 - a\nnot ok 2 - b\nok 3 - c # SKIP no swap\n")
      .counters(0, "after", 2000, 10)
      .done();
  OutputAdapter tap{OutputFormat::kTap, {}};
  RunReport r = parse_run_report(b.bytes(), 1, tap);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.reps[0].metrics.at("tap.fail"), 1);
  ASSERT_EQ(r.reps[0].tests.size(), 3u);
  EXPECT_EQ(r.reps[0].tests[2], (SubtestOutcome{3, "c", "skip", "no swap"}));
  // The same output read as foliolab's contract fails.
  EXPECT_FALSE(parse_run_report(b.bytes(), 1).ok);
}

TEST(RunReport, TapBailOutFails) {
  StreamBuilder b;
  b.prologue()
      .counters(0, "before", 1000, 10)
      .workload(0)
      .out("1..3\nok 1 - a\nBail out! no hugetlb pages\n")
      .counters(0, "after", 2000, 10)
      .done();
  RunReport r = parse_run_report(b.bytes(), 1, OutputAdapter{OutputFormat::kTap, {}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "rep 0: workload fault bailed out: no hugetlb pages");
}

TEST(RunReport, ErrorRecordIsTheReason) {
  StreamBuilder b;
  b.prologue().rep(0, 1).error("knobs", "write enabled: Permission denied").done("failed");
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "guest error in knobs: write enabled: Permission denied");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.done_status, "failed");
}

TEST(RunReport, MissingDone) {
  StreamBuilder b;
  b.prologue().rep(0, 1);
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("guest stopped before reporting completion (no done record"),
            std::string::npos)
      << r.reason;
}

TEST(RunReport, TornStream) {
  StreamBuilder b;
  b.prologue().rep(0, 1);
  const size_t good = b.bytes().size();
  b.done();
  RunReport r = parse_run_report(std::string_view(b.bytes()).substr(0, b.bytes().size() - 3));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, fmt::format("guest stopped before reporting completion (torn record at "
                                  "byte {})",
                                  good));
  EXPECT_EQ(r.damage_offset, good);
  EXPECT_EQ(r.reps.size(), 1u);  // what arrived is still reported
}

TEST(RunReport, DamageAfterDoneStillFails) {
  StreamBuilder b;
  b.prologue().rep(0, 1).done();
  RunReport r = parse_run_report(b.bytes() + "junk\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("damaged after done"), std::string::npos) << r.reason;
}

TEST(RunReport, WorkloadFailMarker) {
  StreamBuilder b;
  b.prologue()
      .counters(0, "before", 1, 1)
      .workload(0, 1)
      .out("{\"faults\":3}\nFOLIOLAB-WORKLOAD-FAIL expected 16384 faults, saw 3\n")
      .counters(0, "after", 4, 1)
      .done();
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reps[0].fail_reason, "expected 16384 faults, saw 3");
  EXPECT_EQ(r.reason, "rep 0: workload fault failed: expected 16384 faults, saw 3 (exit status 1)");
}

TEST(RunReport, NonzeroExitAndSignal) {
  StreamBuilder exit;
  exit.prologue().rep(0, 1);
  exit.counters(1, "before", 1, 1).workload(1, 3).out("").counters(1, "after", 1, 1).done();
  RunReport r = parse_run_report(exit.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "rep 1: workload fault exited with status 3");

  StreamBuilder sig;
  sig.prologue().counters(0, "before", 1, 1).workload(0, -1, 9).out("").counters(0, "after", 1, 1);
  sig.done();
  EXPECT_EQ(parse_run_report(sig.bytes()).reason, "rep 0: workload fault killed by signal 9");
}

TEST(RunReport, MissingOkMarker) {
  StreamBuilder b;
  b.prologue().rep(0, 1, "").done();
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "rep 0: workload fault did not print FOLIOLAB-WORKLOAD-OK");
}

TEST(RunReport, KnobMismatchFails) {
  StreamBuilder b;
  b.hello().knob_set("mismatch").rep(0, 1).done();
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("knob enabled: mismatch"), std::string::npos) << r.reason;
}

TEST(RunReport, RepCountChecked) {
  StreamBuilder b;
  b.prologue().rep(0, 1).done();
  EXPECT_TRUE(parse_run_report(b.bytes(), 1).ok);
  EXPECT_EQ(parse_run_report(b.bytes(), 3).reason, "expected 3 repetitions, guest reported 1");
  StreamBuilder none;
  none.prologue().done();
  EXPECT_EQ(parse_run_report(none.bytes()).reason, "no workload repetitions reported");
}

TEST(RunReport, DoneWithoutStatus) {
  StreamBuilder b;
  b.prologue().rep(0, 1).kv("done", {});
  EXPECT_EQ(parse_run_report(b.bytes()).reason, "done record without a status");
}

TEST(RunReport, EmptyStream) {
  RunReport r = parse_run_report("");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("no records"), std::string::npos);
}

TEST(RunReport, BadNumbersBecomeReasonsNotExceptions) {
  StreamBuilder b;
  b.prologue()
      .kv("counters", {{"rep", "0"}, {"phase", "before"}, {"vmstat.pgfault", "12x"}})
      .kv("workload", {{"rep", "0"},
                       {"name", "fault"},
                       {"exit_status", "0"},
                       {"signal", "0"},
                       {"wall_ns", "99999999999999999999999"}})
      .out("{\"pages\":1}\nFOLIOLAB-WORKLOAD-OK\n")
      .kv("counters", {{"rep", "0"}, {"phase", "after"}, {"vmstat.pgfault", "7"}})
      .done();
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.problems.size(), 2u);
  EXPECT_NE(r.reason.find("malformed guest report"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("vmstat.pgfault is not an integer"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.reps[0].deltas.empty());
}

TEST(RunReport, GarbageNeverCrashes) {
  StreamBuilder b;
  b.raw("hello", "no tabs here\n")
      .raw("counters", "rep\t-5\nphase\tbefore\n")
      .raw("counters", "rep\t99999999\nphase\tbefore\n")
      .raw("stdout", std::string("\xff\xfe{\"a\":1e999}\n\0\n", 16))
      .raw("workload", "rep\t0\n")
      .raw("stdout", "\xc3\x28 bad utf8\n")
      .raw("mystery", "")
      .raw("knobs", "phase\tsideways\n")
      .done()
      .done();
  RunReport r = parse_run_report(b.bytes());
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.problems.empty());
  // Invalid UTF-8 was sanitised: every kept string can be dumped as JSON.
  const nlohmann::json kept = {r.reason, r.problems, r.hello.version, r.reps.size()};
  EXPECT_NO_THROW((void)kept.dump());
}

}  // namespace
}  // namespace foliolab
