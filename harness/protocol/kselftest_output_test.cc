// The `kselftest` adapter over workloads/kselftest-mm.c's framed output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/output_adapter.h"

namespace foliolab {
namespace {

WorkloadOutput kselftest(std::string_view text) {
  return parse_workload_output(text, OutputAdapter{OutputFormat::kKselftest, {}});
}

std::vector<std::string> statuses(const WorkloadOutput& out) {
  std::vector<std::string> s;
  for (const auto& t : out.tests)
    s.push_back(t.status + " " + t.name + (t.reason.empty() ? "" : " / " + t.reason));
  return s;
}

// Shortened from split_huge_page_test and cow on Linux 6.12.
constexpr std::string_view kTapBlocks =
    "@kselftest env swap_kb=0\n"
    "@kselftest begin split_huge_page_test\n"
    "| TAP version 13\n"
    "| 1..3\n"
    "| ok 1 Split huge pages successful\n"
    "| # No large pagecache folio generated, please provide a filesystem supporting large folio\n"
    "| ok 2 # SKIP Pagecache folio split skipped\n"
    "| not ok 3 Split PTE-mapped huge pages\n"
    "| # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n"
    "@kselftest end split_huge_page_test exit=1 signal=0 timeout=0 wall_ms=5120 truncated=0\n"
    "@kselftest begin cow\n"
    "| TAP version 13\n"
    "| 1..1\n"
    "| ok 1 Basic COW after fork() with base page\n"
    "@kselftest end cow exit=0 signal=0 timeout=0 wall_ms=900 truncated=0\n"
    "FOLIOLAB-WORKLOAD-OK\n";

TEST(KselftestOutput, TapBlocksBecomeNamedResults) {
  const WorkloadOutput out = kselftest(kTapBlocks);
  EXPECT_EQ(statuses(out), (std::vector<std::string>{
                               "pass split_huge_page_test: Split huge pages successful",
                               "skip split_huge_page_test / Pagecache folio split skipped",
                               "fail split_huge_page_test: Split PTE-mapped huge pages",
                               "pass cow: Basic COW after fork() with base page",
                           }));
  EXPECT_EQ(out.tests[3].number, 4);
  EXPECT_EQ(out.metrics.at("tap.pass"), 2);
  EXPECT_EQ(out.metrics.at("tap.fail"), 1);
  EXPECT_EQ(out.metrics.at("tap.skip"), 1);
  // A failing selftest is a result; the runner itself succeeded.
  EXPECT_EQ(out.violation, "");
  EXPECT_EQ(workload_failure(OutputFormat::kKselftest, out, 0, 0), "");
}

TEST(KselftestOutput, KhugepagedColoredLinesAndSwapNeeds) {
  const std::string text =
      "@kselftest env swap_kb=0\n"
      "@kselftest begin khugepaged\n"
      "| Save THP and khugepaged settings... \x1b[32mOK\x1b[0m\n"
      "| \n"
      "| Run test: collapse_full (khugepaged:anon)\n"
      "| Allocate huge page... \x1b[32mOK\x1b[0m\n"
      "| Collapse fully populated PTE table.... \x1b[31mFail\x1b[0m\n"
      "| Run test: collapse_swapin_single_pte (khugepaged:anon)\n"
      "| Swapout one page... \x1b[31mFail\x1b[0m\n"
      "@kselftest end khugepaged exit=2 signal=0 timeout=0 wall_ms=60000 truncated=0\n"
      "FOLIOLAB-WORKLOAD-OK\n";
  const WorkloadOutput out = kselftest(text);
  EXPECT_EQ(
      statuses(out),
      (std::vector<std::string>{
          "pass khugepaged: Save THP and khugepaged settings",
          "pass khugepaged: collapse_full (khugepaged:anon): Allocate huge page",
          "fail khugepaged: collapse_full (khugepaged:anon): Collapse fully populated PTE table",
          "skip khugepaged: collapse_swapin_single_pte (khugepaged:anon): Swapout one page / needs "
          "swap "
          "(MADV_PAGEOUT); the guest has none",
      }));
  // With swap, the same failure stays a failure.
  std::string with_swap = text;
  with_swap.replace(with_swap.find("swap_kb=0"), 9, "swap_kb=1024");
  EXPECT_EQ(kselftest(with_swap).metrics.at("tap.fail"), 2);
}

TEST(KselftestOutput, ProgramLevelOutcomes) {
  const WorkloadOutput out = kselftest(
      "@kselftest env swap_kb=0\n"
      "@kselftest begin transhuge-stress\n"
      "| TAP version 13\n"
      "| 1..1\n"
      "| # 0.100 s/loop\n"
      "@kselftest end transhuge-stress exit=-1 signal=9 timeout=1 wall_ms=30004 truncated=0\n"
      "@kselftest begin cow\n"
      "| Bail out! gup_test not available\n"
      "@kselftest end cow exit=1 signal=0 timeout=0 wall_ms=10 truncated=0\n"
      "@kselftest begin khugepaged\n"
      "| Transparent Hugepages not available\n"
      "@kselftest end khugepaged exit=4 signal=0 timeout=0 wall_ms=10 truncated=0\n"
      "@kselftest begin uffd-wp-mremap\n"
      "| foliolab: execv /job/kselftest/uffd-wp-mremap: No such file or directory\n"
      "@kselftest end uffd-wp-mremap exit=127 signal=0 timeout=0 wall_ms=1 truncated=0\n"
      "@kselftest begin quiet\n"
      "@kselftest end quiet exit=0 signal=0 timeout=0 wall_ms=1 truncated=0\n"
      "FOLIOLAB-WORKLOAD-OK\n");
  EXPECT_EQ(statuses(out), (std::vector<std::string>{
                               "fail transhuge-stress / timed out after 30 s and was killed",
                               "fail cow / Bail out! gup_test not available",
                               "skip khugepaged / Transparent Hugepages not available",
                               "fail uffd-wp-mremap / exit status 127: foliolab: execv "
                               "/job/kselftest/uffd-wp-mremap: No such file or directory",
                               "pass quiet",
                           }));
  EXPECT_EQ(workload_failure(OutputFormat::kKselftest, out, 0, 0), "");
}

TEST(KselftestOutput, RunAnnouncementsNameCasesAndEarlyExitsNameTheirTest) {
  const WorkloadOutput out = kselftest(
      "@kselftest env swap_kb=0\n"
      "@kselftest begin cow\n"
      "| 1..2\n"
      "| # [RUN] Basic COW after fork() ... with base page\n"
      "| ok 1 No leak from parent into child\n"
      "| # [RUN] Basic COW after fork() ... with swapped out base page\n"
      "| ok 2 # SKIP MADV_PAGEOUT did not work, is swap enabled?\n"
      "@kselftest end cow exit=0 signal=0 timeout=0 wall_ms=10 truncated=0\n"
      "@kselftest begin khugepaged\n"
      "| Run test: collapse_compound_extreme (khugepaged:anon)\n"
      "| \rConstruct 1/512...\rConstruct 2/512...Failed to allocate huge page\n"
      "| Restore THP and khugepaged settings... \x1b[32mOK\x1b[0m\n"
      "@kselftest end khugepaged exit=1 signal=0 timeout=0 wall_ms=10 truncated=0\n"
      "FOLIOLAB-WORKLOAD-OK\n");
  EXPECT_EQ(
      statuses(out),
      (std::vector<std::string>{
          "pass cow: Basic COW after fork() ... with base page: No leak from parent into child",
          "skip cow: Basic COW after fork() ... with swapped out base page / MADV_PAGEOUT did not "
          "work, is "
          "swap enabled?",
          "pass khugepaged: collapse_compound_extreme (khugepaged:anon): Restore THP and "
          "khugepaged settings",
          "fail khugepaged: collapse_compound_extreme (khugepaged:anon) / exit status 1: Construct "
          "2/512...Failed to allocate huge page",
      }));
}

TEST(KselftestOutput, BrokenFramingFailsTheRep) {
  const WorkloadOutput torn = kselftest("@kselftest begin cow\n| ok 1 a\n");
  EXPECT_EQ(torn.violation, "output ends inside cow's block");
  EXPECT_NE(workload_failure(OutputFormat::kKselftest, torn, 0, 0), "");
  const WorkloadOutput stray = kselftest("@kselftest end cow exit=0\nFOLIOLAB-WORKLOAD-OK\n");
  EXPECT_EQ(stray.violation, "kselftest end line for cow without its begin line");
  // The runner's own failure (bad arguments) is the workload's failure.
  const WorkloadOutput usage = kselftest("FOLIOLAB-WORKLOAD-FAIL tests: bad program name '../x'\n");
  EXPECT_THAT(workload_failure(OutputFormat::kKselftest, usage, 2, 0),
              ::testing::HasSubstr("bad program name"));
  EXPECT_EQ(
      workload_failure(OutputFormat::kKselftest, kselftest("@kselftest env swap_kb=0\n"), 0, 0),
      "did not print FOLIOLAB-WORKLOAD-OK");
}

TEST(KselftestOutput, OnlyKselftestMmUsesIt) {
  EXPECT_EQ(output_adapter_for(WorkloadSpec{.name = "kselftest-mm"}).format,
            OutputFormat::kKselftest);
  EXPECT_EQ(parse_output_format("kselftest"), std::nullopt);  // not a `custom` output
  EXPECT_EQ(output_format_name(OutputFormat::kKselftest), "kselftest");
}

}  // namespace
}  // namespace foliolab
