// The n of adaptive repetitions says why the reps stopped, in the text and Markdown tables.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/comparison.h"
#include "report/markdown.h"
#include "report/text.h"
#include "testing/record_fixture.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

ComparisonModel model(const std::optional<RepeatStop>& a, const std::optional<RepeatStop>& b) {
  static RunRecord ra, rb;
  FakeRun f;
  f.metrics = {{"sys_s", {0.2, 0.21, 0.19, 0.2, 0.2, 0.21, 0.2}},
               {"faults", {7, 7, 7, 7, 7, 7, 7}}};
  ra = fake_record(f);
  ra.repeat_stop = a;
  f.knobs = "64K";
  rb = fake_record(f);
  rb.repeat_stop = b;
  ComparisonModel m{.kind = "report"};
  m.groups.push_back(compare_group(
      {"k · x86_64 · fault", "k", "x86_64", "fault", "", {{"4K", {&ra}, ""}, {"64K", {&rb}, ""}}},
      {}));
  return m;
}

std::string text(const ComparisonModel& m) {
  std::ostringstream out;
  write_text(m, {}, out);
  return out.str();
}

std::string markdown(const ComparisonModel& m) {
  std::ostringstream out;
  write_markdown(m, {}, out);
  return out.str();
}

const RepeatStop kReachedStop{
    .reason = RepeatStopReason::kReached, .n = 7, .target = 0.02, .half_width = {{"sys_s", 0.018}}};

TEST(RepeatNote, ReachedAndMaxAreSaidNextToN) {
  const ComparisonModel both = model(kReachedStop, kReachedStop);
  EXPECT_THAT(text(both), HasSubstr("· n=7 (reached ±2 %)"));
  EXPECT_THAT(markdown(both), HasSubstr("| sys_s† | s | 4K | 7 (reached ±2 %) |"));
  EXPECT_THAT(markdown(both), HasSubstr("| faults | faults | 4K | 7 |"));  // not watched
  RepeatStop max = kReachedStop;
  max.reason = RepeatStopReason::kMax;
  max.n = 30;
  max.half_width = {{"sys_s", 0.034}};
  const ComparisonModel one_max = model(kReachedStop, max);
  EXPECT_THAT(text(one_max), HasSubstr("(max; ±3.4 %)"));
  EXPECT_THAT(markdown(one_max), HasSubstr("| 64K | 7 (max; ±3.4 %) |"));
}

TEST(RepeatNote, FixedCountsAndOldRecordsShowNOnly) {
  RepeatStop fixed = kReachedStop;
  fixed.reason = RepeatStopReason::kFixed;
  for (const ComparisonModel& m : {model(fixed, fixed), model(std::nullopt, std::nullopt)}) {
    EXPECT_THAT(text(m), HasSubstr("· n=7"));
    EXPECT_EQ(text(m).find("reached"), std::string::npos);
    EXPECT_EQ(markdown(m).find("(max"), std::string::npos);
  }
}

}  // namespace
}  // namespace foliolab
