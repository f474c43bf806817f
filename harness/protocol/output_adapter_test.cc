#include "protocol/output_adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace foliolab {
namespace {

using ::testing::HasSubstr;

WorkloadOutput foliolab(std::string_view text) {
  return parse_workload_output(text, OutputAdapter{OutputFormat::kFoliolab, {}});
}
WorkloadOutput tap(std::string_view text) {
  return parse_workload_output(text, OutputAdapter{OutputFormat::kTap, {}});
}
WorkloadOutput regex(std::string_view text, KeyValues patterns) {
  return parse_workload_output(text, OutputAdapter{OutputFormat::kRegex, std::move(patterns)});
}

TEST(FoliolabOutput, OneLineThenTheMarker) {
  const WorkloadOutput out =
      foliolab("log line\n{\"faults\": 12, \"x\": \"s\"}\nFOLIOLAB-WORKLOAD-OK\n");
  EXPECT_EQ(out.violation, "");
  EXPECT_EQ(out.metrics, (std::map<std::string, double>{{"faults", 12}}));
  EXPECT_EQ(workload_failure(OutputFormat::kFoliolab, out, 0, 0), "");
}

TEST(FoliolabOutput, Strict) {
  EXPECT_EQ(foliolab("{\"a\":1}\n{\"a\":2}\nFOLIOLAB-WORKLOAD-OK\n").violation,
            "2 metric lines; exactly one is allowed");
  EXPECT_EQ(foliolab("{\"a\":1}\nFOLIOLAB-WORKLOAD-OK\nFOLIOLAB-WORKLOAD-OK\n").violation,
            "FOLIOLAB-WORKLOAD-OK printed 2 times");
  EXPECT_EQ(foliolab("{\"a\":1}\nFOLIOLAB-WORKLOAD-OK\ntrailing\n").violation,
            "output after FOLIOLAB-WORKLOAD-OK: \"trailing\"");
  EXPECT_EQ(foliolab("FOLIOLAB-WORKLOAD-OK\n").violation,
            "no metrics line before FOLIOLAB-WORKLOAD-OK");
  const WorkloadOutput none = foliolab("{\"a\":1}\n");
  EXPECT_EQ(workload_failure(OutputFormat::kFoliolab, none, 0, 0),
            "did not print FOLIOLAB-WORKLOAD-OK");
  const WorkloadOutput failed = foliolab("FOLIOLAB-WORKLOAD-FAIL size=0: bad\n");
  EXPECT_EQ(workload_failure(OutputFormat::kFoliolab, failed, 2, 0),
            "failed: size=0: bad (exit status 2)");
}

TEST(TapOutput, Tap14WithDirectivesYamlAndSubtests) {
  const WorkloadOutput out =
      tap("TAP version 14\n"
          "1..5\n"
          "# diagnostic\n"
          "ok 1 - split_huge_page\n"
          "not ok 2 - cow: anon THP\n"
          "  ---\n"
          "  message: 'ok 99 inside yaml'\n"
          "  ...\n"
          "ok 3 khugepaged # SKIP no swap\n"
          "    # Subtest: inner\n"
          "    ok 1 - inner test\n"
          "not ok 4 - flaky # TODO fix later\n"
          "ok - unnumbered\n");
  EXPECT_EQ(out.violation, "");
  ASSERT_EQ(out.tests.size(), 5u);
  EXPECT_EQ(out.tests[0], (SubtestOutcome{1, "split_huge_page", "pass", ""}));
  EXPECT_EQ(out.tests[1], (SubtestOutcome{2, "cow: anon THP", "fail", ""}));
  EXPECT_EQ(out.tests[2], (SubtestOutcome{3, "khugepaged", "skip", "no swap"}));
  EXPECT_EQ(out.tests[3], (SubtestOutcome{4, "flaky", "skip", "TODO fix later"}));
  EXPECT_EQ(out.tests[4], (SubtestOutcome{5, "unnumbered", "pass", ""}));
  EXPECT_EQ(out.metrics.at("tap.pass"), 2);
  EXPECT_EQ(out.metrics.at("tap.fail"), 1);
  EXPECT_EQ(out.metrics.at("tap.skip"), 2);
  // Failing tests are results: the repetition itself succeeded, whatever the exit status.
  EXPECT_EQ(workload_failure(OutputFormat::kTap, out, 1, 0), "");
}

TEST(TapOutput, PlanAtTheEndAndSkipAll) {
  EXPECT_EQ(tap("ok 1\nok 2\n1..2\n").violation, "");
  const WorkloadOutput all = tap("1..0 # SKIP no THP\n");
  EXPECT_EQ(all.violation, "");
  EXPECT_EQ(all.metrics.at("tap.pass"), 0);
}

TEST(TapOutput, BailOutAndPlanMismatchFail) {
  const WorkloadOutput bail = tap("1..4\nok 1\nBail out! no hugetlbfs\nok 2\n");
  EXPECT_TRUE(bail.bailed_out);
  EXPECT_EQ(bail.tests.size(), 1u);
  EXPECT_EQ(workload_failure(OutputFormat::kTap, bail, 0, 0), "bailed out: no hugetlbfs");
  EXPECT_EQ(tap("1..3\nok 1\n").violation, "TAP plan 1..3 but 1 tests ran");
  EXPECT_EQ(tap("ok 1\n").violation, "no TAP plan (1..N) in the output (1 test lines)");
  EXPECT_EQ(tap("1..1\n1..1\nok 1\n").violation, "two TAP plans");
  EXPECT_EQ(workload_failure(OutputFormat::kTap, tap("1..1\nok 1\n"), 0, 9), "killed by signal 9");
}

TEST(TapOutput, BoundedTests) {
  std::string text = "1..20000\n";
  for (int i = 1; i <= 20000; ++i) text += "ok " + std::to_string(i) + "\n";
  const WorkloadOutput out = tap(text);
  EXPECT_EQ(out.tests.size(), kMaxTests);
  EXPECT_EQ(out.violation, "");
  EXPECT_EQ(out.metrics.at("tap.pass"), 10000);  // the rest ran but are not kept
  EXPECT_EQ(out.metrics.at("tap.fail"), 10000);  // ... and count as failed: status unknown
}

TEST(RegexOutput, LastMatchingLineWins) {
  const WorkloadOutput out = regex("warmup total:5\nmin:1 max:9 total:12345\ntps = 812.5 (x)\n",
                                   {{"total", "total:(\\d+)"}, {"tps", "tps = ([0-9.]+)"}});
  EXPECT_EQ(out.violation, "");
  EXPECT_EQ(out.metrics, (std::map<std::string, double>{{"total", 12345}, {"tps", 812.5}}));
  EXPECT_EQ(workload_failure(OutputFormat::kRegex, out, 0, 0), "");
  EXPECT_EQ(workload_failure(OutputFormat::kRegex, out, 3, 0), "exited with status 3");
}

TEST(RegexOutput, NoMatchOrNotANumberFails) {
  EXPECT_EQ(regex("nothing\n", {{"ops", "total:(\\d+)"}}).violation,
            "metric ops: pattern 'total:(\\d+)' matched no line");
  EXPECT_EQ(regex("total:abc\n", {{"ops", "total:(\\w+)"}}).violation,
            "metric ops: captured \"abc\", not a number");
  EXPECT_THAT(regex("x\n", {{"ops", "("}}).violation, HasSubstr("invalid pattern"));
}

TEST(ExitStatusOutput, PassOrFailOnly) {
  const WorkloadOutput out =
      parse_workload_output("anything\n", OutputAdapter{OutputFormat::kExitStatus, {}});
  EXPECT_TRUE(out.metrics.empty());
  EXPECT_EQ(workload_failure(OutputFormat::kExitStatus, out, 0, 0), "");
  EXPECT_EQ(workload_failure(OutputFormat::kExitStatus, out, 1, 0), "exited with status 1");
}

TEST(OutputAdapter, FromTheWorkload) {
  WorkloadSpec w;
  w.name = "custom";
  w.params = {{"source", "p.c"}, {"output", "regex"}};
  w.metric_patterns = {{"ops", "ops=(\\d+)"}};
  const OutputAdapter a = output_adapter_for(w);
  EXPECT_EQ(a.format, OutputFormat::kRegex);
  EXPECT_EQ(a.patterns, w.metric_patterns);
  EXPECT_EQ(output_adapter_for(WorkloadSpec{}).format, OutputFormat::kFoliolab);
}

TEST(OutputAdapter, GarbageNeverCrashes) {
  constexpr char kAlphabet[] = "ok not1.#\n {}\"Bail out!:FOLIOLAB-WORKLOAD-OK\xff";
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string text(static_cast<size_t>(rng() % 3000), '\0');
    for (char& c : text) c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
    for (OutputFormat f : {OutputFormat::kFoliolab, OutputFormat::kTap, OutputFormat::kRegex,
                           OutputFormat::kExitStatus}) {
      const WorkloadOutput out =
          parse_workload_output(text, OutputAdapter{f, {{"m", "k(\\d+)"}, {"n", "(a|b)*c"}}});
      EXPECT_LE(out.tests.size(), kMaxTests);
      (void)workload_failure(f, out, 0, 0);
    }
  }
}

}  // namespace
}  // namespace foliolab
