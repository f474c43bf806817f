// `thresholds:`: a count's practical threshold as the experiment sets it (model/metric_kind.h).
#include <gtest/gtest.h>

#include "model/loader.h"
#include "testing/minimal_experiment.h"

namespace foliolab {
namespace {

TEST(LoaderThresholds, NumberPercentOrBoth) {
  auto exp = parse_minimal(
      "thresholds:\n"
      "  fallback.thp: 4\n"
      "  success.thp: 0.05\n"
      "  fallback.anon.*: 30%\n"
      "  vmstat.thp_fault_fallback: {abs: 2, rel: 10%}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const ThresholdRules& t = exp->thresholds;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].metric, "fallback.thp");
  EXPECT_EQ(t[0].threshold.abs, 4);
  EXPECT_EQ(t[0].threshold.rel, 0);
  EXPECT_EQ(t[1].threshold.abs, 0.05);
  EXPECT_EQ(t[2].threshold.abs, 0);
  EXPECT_DOUBLE_EQ(t[2].threshold.rel, 0.3);
  EXPECT_EQ(t[3].threshold.abs, 2);
  EXPECT_DOUBLE_EQ(t[3].threshold.rel, 0.1);
  EXPECT_EQ(t[2].loc.str(), "q.yaml:12:3");
  EXPECT_TRUE(t[2].matches("fallback.anon.64kB"));
  EXPECT_FALSE(t[2].matches("fallback.shmem.64kB"));
  EXPECT_TRUE(t[0].matches("fallback.thp"));
  EXPECT_FALSE(t[0].matches("fallback.thpx"));
}

TEST(LoaderThresholds, BadValuesAreLocated) {
  EXPECT_EQ(minimal_error("thresholds: {fallback.thp: -1}\n"),
            "q.yaml:9:28: thresholds[\"fallback.thp\"]: a threshold is at least 0");
  EXPECT_EQ(minimal_error("thresholds: {fallback.thp: lots}\n"),
            "q.yaml:9:28: thresholds[\"fallback.thp\"]: expected a number, got 'lots'");
  EXPECT_EQ(minimal_error("thresholds: {fallback.thp: {rel: 10}}\n"),
            "q.yaml:9:34: thresholds[\"fallback.thp\"].rel: rel is a percentage, such as 30%");
  EXPECT_EQ(minimal_error("thresholds: {fallback.thp: {abs: 5%}}\n"),
            "q.yaml:9:34: thresholds[\"fallback.thp\"].abs: abs is a number in the metric's unit");
  EXPECT_EQ(minimal_error("thresholds: {fallback.thp: {}}\n"),
            "q.yaml:9:28: thresholds[\"fallback.thp\"]: give abs, rel or both");
  EXPECT_EQ(minimal_error("thresholds: {fallback.thp: {ab: 1}}\n"),
            "q.yaml:9:29: thresholds[\"fallback.thp\"].ab: unknown key; did you mean 'abs'?");
  EXPECT_EQ(minimal_error("thresholds: {'a b': 1}\n"),
            "q.yaml:9:14: thresholds[\"a b\"]: 'a b' is not a metric name, nor a prefix ending in "
            "'*' (fallback.thp, fallback.anon.*)");
  EXPECT_EQ(minimal_error("thresholds: [fallback.thp]\n"),
            "q.yaml:9:13: thresholds: expected a map, got a list");
}

}  // namespace
}  // namespace foliolab
