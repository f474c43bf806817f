#include "analysis/subtest_results.h"

#include "report/session_layout.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

RunRecord record(const std::string& id, std::vector<std::vector<SubtestOutcome>> reps) {
  RunRecord r;
  r.id.run_id = id;
  for (size_t i = 0; i < reps.size(); ++i)
    r.reps.push_back({.rep = static_cast<int>(i), .tests = reps[i]});
  return r;
}

TEST(TestResults, CountsAndListsWhatDidNotPass) {
  const std::vector<RunRecord> records = {
      record("x86_64-ks", {{{1, "cow: a", "pass", ""},
                            {2, "cow: b", "skip", "no hugetlb"},
                            {3, "cow: c", "fail", ""}},
                           {{1, "cow: a", "pass", ""},
                            {2, "cow: b", "skip", "no hugetlb"},
                            {3, "cow: c", "pass", ""}}}),
      record("x86_64-fault", {{}}),  // no tests: not listed
      record("arm64-ks", {{{1, "split", "skip", "x"}, {2, "split", "pass", ""}},
                          {{1, "split", "skip", "x"}, {2, "split", "pass", ""}}}),
  };
  const auto runs = collect_test_results(records);
  ASSERT_EQ(runs.size(), 2u);
  // Repeated names are matched by occurrence, not merged.
  EXPECT_EQ(runs[1].pass, 1);
  EXPECT_EQ(runs[1].skip, 1);
  EXPECT_EQ(runs[1].rows[1].name, "split (2)");
  EXPECT_EQ(runs[0].pass, 1);
  EXPECT_EQ(runs[0].skip, 1);
  EXPECT_EQ(runs[0].mixed, 1);
  EXPECT_EQ(test_result_lines({runs[0]}),
            (std::vector<std::string>{
                "tests (passed tests counted; every test is in run.json reps[].tests):",
                "  x86_64-ks: 1 passed, 0 failed, 1 skipped, 1 differ between reps (2 reps)",
                "    mixed cow: c — fail pass in 2 of 2 reps",
                "    skip  cow: b — no hugetlb",
                "",
            }));
  EXPECT_TRUE(test_result_lines(collect_test_results({records[1]})).empty());
}

}  // namespace
}  // namespace foliolab
