// Instruction-time (machine.timing: icount) is labelled as such wherever a † marks TCG timings.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/history.h"
#include "analysis/pairing.h"
#include "report/render.h"
#include "testing/record_fixture.h"

namespace foliolab {
namespace {
using nlohmann::json;

std::vector<RunRecord> session(const std::string& timing) {
  std::vector<RunRecord> out;
  for (const char* knobs : {"4K", "64K mTHP"}) {
    RunRecord r = fake_record(
        {.knobs = knobs,
         .metrics = {{"sys_s", {0.103, 0.1031, 0.1029}}, {"faults", {16384, 16384, 16384}}}});
    r.provenance.timing = timing;
    out.push_back(std::move(r));
  }
  return out;
}

// The text with its wrapped warning lines joined again.
std::string text_of(const ComparisonModel& m) {
  std::ostringstream text;
  render_comparison(m, Format::kText, text);
  std::string t = text.str();
  for (size_t at; (at = t.find("\n  ")) != std::string::npos;) t.replace(at, 3, " ");
  return t;
}

TEST(IcountLabel, ComparisonSaysInstructionTimeInsteadOfTcgEmulationTimings) {
  const ComparisonModel icount =
      compare_sides({"a", "", session("icount")}, {"b", "", session("icount")}, {});
  const std::string t = text_of(icount);
  EXPECT_NE(t.find("sys_s†"), std::string::npos);
  EXPECT_NE(t.find("timings (†) are instruction-time (icount)"), std::string::npos) << t;
  EXPECT_NE(t.find("· TCG icount"), std::string::npos);
  EXPECT_EQ(t.find("TCG emulation timings"), std::string::npos);
  std::ostringstream js;
  render_comparison(icount, Format::kJson, js);
  const json g = json::parse(js.str()).at("groups").at(0);
  EXPECT_EQ(g["variants"][0]["timings_icount"], true);
  for (const json& row : g["metrics"]) EXPECT_EQ(row["icount"], row["metric"] == "sys_s");

  // Plain TCG, or a side of it beside an icount side: the TCG words stay.
  const ComparisonModel mixed =
      compare_sides({"a", "", session("wall")}, {"b", "", session("icount")}, {});
  EXPECT_NE(text_of(mixed).find("TCG emulation timings"), std::string::npos);
  EXPECT_EQ(text_of(mixed).find("instruction-time"), std::string::npos);
}

TEST(IcountLabel, HistoryNotesInstructionTimePoints) {
  std::vector<IndexedSample> samples;
  for (const char* timing : {"wall", "icount"}) {
    IndexedRun run{.session = std::string("q/") + timing,
                   .stamp = timing,
                   .kernel = "k",
                   .arch = "x86_64",
                   .knob_set = "4K",
                   .workload = "fault",
                   .timings_emulated = true,
                   .timing = timing};
    for (int rep = 0; rep < 3; ++rep) samples.push_back({run, rep, 0.1 + rep * 0.001});
  }
  const HistoryModel h = build_history("sys_s", samples);
  ASSERT_EQ(h.series.size(), 1u);
  ASSERT_EQ(h.series[0].points.size(), 2u);
  EXPECT_FALSE(h.series[0].points[0].icount);
  EXPECT_TRUE(h.series[0].points[1].icount);
  std::ostringstream text;
  render_history(h, Format::kText, text);
  EXPECT_NE(text.str().find("† TCG emulation timing"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("instruction-time (icount)"), std::string::npos);
}

}  // namespace
}  // namespace foliolab
