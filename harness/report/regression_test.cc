#include "report/regression.h"

#include <gtest/gtest.h>

#include <sstream>

#include "testing/record_fixture.h"
#include "util/text.h"

namespace foliolab {
namespace {

RunRecord col(const std::string& kernel, double faults, double calls) {
  FakeRun f{.kernel = kernel};
  f.metrics["faults"] = {faults, faults, faults};
  f.metrics["kprobe.planted_extra_work"] = {calls, calls, calls};
  f.metrics["wall_s"] = {0.5, 0.5, 0.5};
  RunRecord r = fake_record(f);
  r.provenance.kernel_build_id = "id-" + kernel;
  r.provenance.host.cpu_model = "AMD EPYC 7B13 64-Core Processor with a long model name";
  r.id.workload.params = {{"size", "64M"}, {"threads", "1"}, {"mapping", "anon"}};
  return r;
}

RegressionReport sample() {
  const std::vector<RunRecord> cols = {col("parent", 4096, 0), col("culprit", 8192, 8192),
                                       col("fix", 4096, 0)};
  GroupRuns in{.title = "t", .arch = "x86_64", .workload = "fault", .knobs = "4K"};
  for (const RunRecord& r : cols) in.variants.push_back({r.id.kernel.name, {&r}, ""});
  RegressionReport r =
      regression_of(compare_group(in, {}), "faults", {"parent", "culprit", "culprit+fix"}, cols[0]);
  judge_fixes(r);
  r.culprit = "patch 5 of 7 (mm: memory: an extra call on every anonymous fault)";
  r.origin = "bisection results/nightly/bisect-20261207T000000Z, confirmed in 2 fresh boots";
  r.config_diff = {"CONFIG_FOO: n → y"};
  r.reproduce =
      "cd results/nightly/bisect-20261207T000000Z/reproduce && foliolab run "
      "experiment.yaml";
  return r;
}

std::string render(const RegressionReport& r, Format f) {
  std::ostringstream out;
  render_regression(r, f, out);
  return out.str();
}

size_t columns_of(std::string_view line) {  // code points: the text's UTF-8 marks are one column
  size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(RegressionRender, TextFitsAMailAt100ColumnsAndSaysEverything) {
  const std::string text = render(sample(), Format::kText);
  for (std::string_view line : split_lines(text)) EXPECT_LE(columns_of(line), 100u) << line;
  for (const char* want :
       {"faults +100 % [", "(regressed) on patch 5 of 7 (mm: memory: an extra call", "origin:",
        "cell:     kernel", "machine:  qemu tcg", "kprobe.planted_extra_work", "culprit+fix: fixed",
        "did not move: 1 more rows", "CONFIG_FOO: n → y", "reproduce: cd results"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
}

TEST(RegressionRender, MarkdownHasTheTablesAndJsonEveryField) {
  const std::string md = render(sample(), Format::kMarkdown);
  EXPECT_NE(md.find("| metric |"), std::string::npos) << md;
  EXPECT_NE(md.find("kernel evidence"), std::string::npos) << md;
  const nlohmann::json j = nlohmann::json::parse(render(sample(), Format::kJson));
  EXPECT_EQ(j["schema"], kRegressionSchema);
  EXPECT_EQ(j["metric"], "faults");
  EXPECT_EQ(j["moved"][0]["metric"], "faults");
  EXPECT_EQ(j["moved"][1]["metric"], "kprobe.planted_extra_work");
  EXPECT_TRUE(j["moved"][1]["evidence"].get<bool>());
  EXPECT_EQ(j["moved"][0]["deltas"][1]["verdict"], "regressed");
  EXPECT_EQ(j["fixes"], nlohmann::json::array({"fixed"}));
  EXPECT_EQ(j["columns"][2]["build_id"], "id-fix");
  EXPECT_EQ(j["unchanged"], 1);
}

}  // namespace
}  // namespace foliolab
