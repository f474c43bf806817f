// The helpers every output parser shares, and the whitespace the parsers trim.
#include "protocol/workload_output.h"

#include <gtest/gtest.h>

#include "protocol/output_adapter.h"

namespace foliolab {
namespace {

TEST(WorkloadOutput, FailMarkerNeedsItsWordAndKeepsTheFirstReason) {
  WorkloadOutput out;
  EXPECT_FALSE(read_fail_marker("FOLIOLAB-WORKLOAD-FAILED", out));
  EXPECT_FALSE(out.fail_marker);
  EXPECT_TRUE(read_fail_marker("FOLIOLAB-WORKLOAD-FAIL  no memory ", out));
  EXPECT_TRUE(read_fail_marker("FOLIOLAB-WORKLOAD-FAIL later", out));
  EXPECT_TRUE(out.fail_marker);
  EXPECT_EQ(out.fail_reason, "no memory");
}

TEST(WorkloadOutput, ProblemsAndViolationsAreBounded) {
  WorkloadOutput out;
  for (int i = 0; i < 150; ++i) add_problem(out, "p");
  EXPECT_EQ(out.problems.size(), 100u);
  add_violation(out, "first");
  add_violation(out, "second");
  EXPECT_EQ(out.violation, "first");
  set_metric(out, "x", 1.0 / 0.0);
  EXPECT_FALSE(out.metrics.contains("x"));
}

// The parsers trim with util/text.h's trim, which also drops \v, \f and a leading \r (their
// own trim dropped spaces and tabs, and a trailing \r, only).
TEST(WorkloadOutput, ParsersTrimAllAsciiWhitespace) {
  const WorkloadOutput marked = parse_workload_output("{\"a\":1}\nFOLIOLAB-WORKLOAD-OK\f\n",
                                                      OutputAdapter{OutputFormat::kFoliolab, {}});
  EXPECT_TRUE(marked.ok_marker);
  const WorkloadOutput redrawn = parse_workload_output("\r{\"a\":1}\n \rFOLIOLAB-WORKLOAD-OK\n",
                                                       OutputAdapter{OutputFormat::kFoliolab, {}});
  EXPECT_TRUE(redrawn.ok_marker);
  EXPECT_EQ(redrawn.metrics.at("a"), 1);
  const WorkloadOutput tap =
      parse_workload_output("1..1\nok 1 - name\v\n", OutputAdapter{OutputFormat::kTap, {}});
  ASSERT_EQ(tap.tests.size(), 1u);
  EXPECT_EQ(tap.tests[0].name, "name");
  const WorkloadOutput regex = parse_workload_output(
      "faults: 5\f\n", OutputAdapter{OutputFormat::kRegex, {{"faults", "faults: (.*)"}}});
  EXPECT_EQ(regex.violation, "");
  EXPECT_EQ(regex.metrics.at("faults"), 5);
}

}  // namespace
}  // namespace foliolab
