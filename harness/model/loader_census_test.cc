// `evidence: {census: true}`: what the loader reads, how bad input is named, what `plan` refuses
// (a workload that does not signal its peak, a census metric without a census), the job line,
// and that it leaves run ids alone (it observes, like the monitor).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/workload_check.h"
#include "model/file_keys.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "protocol/job.h"
#include "testing/minimal_experiment.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

TEST(LoaderCensus, CensusReadsAndIsNoPartOfRunIds) {
  auto exp = parse_minimal("evidence: {census: true}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_TRUE(exp->evidence.census);
  EXPECT_EQ(exp->evidence.census_loc.line, 9);
  auto plain = parse_minimal("");
  EXPECT_FALSE(plain->evidence.census);
  EXPECT_EQ(expand(*exp).at(0).id, expand(*plain).at(0).id);
  EXPECT_TRUE(validate_workloads(*exp).ok());
  auto job = render_job(*exp, expand(*exp).at(0));
  ASSERT_TRUE(job.ok());
  EXPECT_THAT(*job, HasSubstr("census 1\nworkload fault\n"));
  EXPECT_EQ(render_job(*plain, expand(*plain).at(0))->find("census"), std::string::npos);
  EXPECT_NE(file_keys::experiment().names().size(), 0u);
}

TEST(LoaderCensus, BadInputIsNamed) {
  EXPECT_THAT(minimal_error("evidence: {census: maybe}\n"), HasSubstr("q.yaml:9:"));
  EXPECT_THAT(minimal_error("evidence: {cenus: true}\n"), HasSubstr("did you mean 'census'"));
}

TEST(LoaderCensus, PlanRefusesAWorkloadWithoutAPeakAndCensusMetricsWithoutACensus) {
  const std::string base =
      "name: w\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {a: {}}\n"
      "workloads: [{name: swap}]\nevidence: {census: true}\n";
  auto exp = parse_experiment(base, "x.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  Result<void> st = validate_workloads(*exp);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message,
              HasSubstr("x.yaml:6:20: evidence.census: workload 'swap' does not signal its peak"));
  EXPECT_THAT(st.error().message, HasSubstr("those that do: fault,"));

  auto expect = parse_minimal("expect: [{metric: census.anon.64K.folios, '>=': 1024}]\n");
  ASSERT_TRUE(expect.ok()) << expect.error().message;
  st = validate_workloads(*expect);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("needs evidence: {census: true}"));
  expect->evidence.census = true;
  EXPECT_TRUE(validate_workloads(*expect).ok());
  expect->expectations[0].metric = "census.anon.64kB.folios";
  EXPECT_THAT(validate_workloads(*expect).error().message, HasSubstr("is no census metric"));
}

}  // namespace
}  // namespace foliolab
