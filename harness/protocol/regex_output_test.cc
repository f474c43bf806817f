#include "protocol/regex_output.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

// usemem prints one line per task.
constexpr std::string_view kUsemem =
    "1 tasks\n"
    "2001 used 1024 kB in 0.5 s\n"
    "2002 used 4096 kB in 0.7 s\n"
    "2003 used 512 kB in 0.2 s\n"
    "done\n";

WorkloadOutput parse(std::string_view text, const std::string& pattern, const std::string& how) {
  WorkloadOutput out;
  KeyValues aggregates;
  if (!how.empty()) aggregates = {{"kb", how}};
  parse_regex_output(text, {{"kb", pattern}}, aggregates, out);
  return out;
}

TEST(RegexAggregate, CombinesEveryMatchingLine) {
  const std::string used = "used (\\d+) kB";
  const std::vector<std::pair<std::string, double>> want = {
      {"", 512},    {"last", 512}, {"first", 1024}, {"sum", 5632},
      {"min", 512}, {"max", 4096}, {"count", 3}};
  for (const auto& [how, value] : want) {
    const WorkloadOutput out = parse(kUsemem, used, how);
    EXPECT_EQ(out.violation, "") << how;
    ASSERT_EQ(out.metrics.count("kb"), 1u) << how;
    EXPECT_EQ(out.metrics.at("kb"), value) << how;
  }
}

TEST(RegexAggregate, CountOfNoLineIsZeroOthersFail) {
  EXPECT_EQ(parse(kUsemem, "freed (\\d+)", "count").metrics.at("kb"), 0);
  EXPECT_EQ(parse(kUsemem, "freed (\\d+)", "sum").violation,
            "metric kb: pattern 'freed (\\d+)' matched no line");
}

TEST(RegexAggregate, ANonNumberAmongTheCombinedFails) {
  const std::string text = "used 5 kB\nused x kB\nused 7 kB\n";
  EXPECT_EQ(parse(text, "used (\\w+) kB", "sum").violation,
            "metric kb: captured \"x\", not a number");
  EXPECT_TRUE(parse(text, "used (\\w+) kB", "sum").metrics.empty());
  // Only the captures an aggregate uses must be numbers; count needs none.
  EXPECT_EQ(parse(text, "used (\\w+) kB", "first").metrics.at("kb"), 5);
  EXPECT_EQ(parse(text, "used (\\w+) kB", "last").metrics.at("kb"), 7);
  EXPECT_EQ(parse(text, "used (\\w+) kB", "count").metrics.at("kb"), 3);
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

// mmtests thpchallenge: a line per fault with its latency (ns), huge or base.
constexpr std::string_view kThpchallenge =
    "fault huge 31200\n"
    "fault base 2410\n"
    "fault huge 30800\n"
    "fault base 2390\n"
    "fault base 2600\n"
    "fault huge 45100\n";

TEST(RegexAggregate, DistributionKeepsEveryCaptureAsAHistogram) {
  WorkloadOutput out;
  parse_regex_output(kThpchallenge,
                     {{"huge_ns", "^fault huge (\\d+)"}, {"base_ns", "^fault base (\\d+)"}},
                     {{"huge_ns", "distribution"}, {"base_ns", "distribution"}}, out);
  EXPECT_EQ(out.violation, "");
  EXPECT_TRUE(out.metrics.empty());  // read through the distribution's derived names
  ASSERT_EQ(out.distributions.size(), 2u);
  const Distribution& huge = out.distributions.at("huge_ns");
  EXPECT_EQ(huge.count, 3);
  EXPECT_EQ(huge.quantile(0.5), 31200);
  EXPECT_EQ(huge.max, 45100);
  EXPECT_EQ(out.distributions.at("base_ns").quantile(0.5), 2410);
}

TEST(RegexAggregate, DistributionOfNoLineOrANonNumberFails) {
  WorkloadOutput none;
  parse_regex_output("nothing\n", {{"lat", "fault (\\d+)"}}, {{"lat", "distribution"}}, none);
  EXPECT_EQ(none.violation, "metric lat: pattern 'fault (\\d+)' matched no line");
  WorkloadOutput bad;
  parse_regex_output("fault 12\nfault x\n", {{"lat", "fault (\\S+)"}}, {{"lat", "distribution"}},
                     bad);
  EXPECT_EQ(bad.violation, "metric lat: captured \"x\", not a number");
  EXPECT_TRUE(bad.distributions.empty());
}

}  // namespace
}  // namespace foliolab
