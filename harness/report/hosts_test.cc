// Runs from several hosts (merged shards, a pool): reports say where each run ran, and
// compare/gate warn when BASE and CAND ran on different hosts or accelerators.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/gate.h"
#include "analysis/pairing.h"
#include "analysis/session_report.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "report/junit.h"
#include "report/render.h"
#include "report/text.h"
#include "testing/record_fixture.h"
#include "util/build_info.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

struct Sessions {
  Experiment exp;
  std::vector<RunRecord> base, cand;
};

// Quickstart records, all on host "testhost" under TCG.
Sessions quickstart() {
  Sessions s;
  auto exp =
      load_experiment((fs::path(foliolab::source_dir()) / "experiments/quickstart.yaml").string());
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  s.exp = *exp;
  for (const foliolab::Run& run : expand(s.exp)) {
    FakeRun f;
    f.arch = arch_info(run.arch).name;
    f.knobs = s.exp.knob_sets[run.knob_set].name;
    f.metrics = {{"faults", {1025, 1030, 1020}}, {"sys_s", {0.20, 0.22, 0.21}}};
    RunRecord r = fake_record(f);
    r.id.run_id = run.id;
    s.base.push_back(r);
    s.cand.push_back(r);
  }
  return s;
}

std::string hosts_text(const ComparisonModel& m) {
  std::ostringstream out;
  render_comparison(m, Format::kText, out);
  return out.str();
}

TEST(HostWarnings, NoneWhenBothSidesRanOnOneHostAndAccel) {
  Sessions s = quickstart();
  const ComparisonModel m = compare_sides({"a", "", s.base}, {"b", "", s.cand}, {});
  EXPECT_TRUE(m.warnings.empty());
  EXPECT_EQ(hosts_text(m).find("ran on"), std::string::npos) << hosts_text(m);
}

TEST(HostWarnings, DifferentHostsAreNamedInTextJsonAndGate) {
  Sessions s = quickstart();
  for (RunRecord& r : s.cand) r.provenance.host.hostname = "node2";
  const ComparisonModel m = compare_sides({"a", "", s.base}, {"b", "", s.cand}, {});
  ASSERT_EQ(m.warnings.size(), 1u);
  const std::string expected =
      "BASE ran on testhost, CAND on node2: timings of different hosts do not compare";
  EXPECT_EQ(m.warnings[0], expected);
  EXPECT_NE(hosts_text(m).find("warning: " + expected), std::string::npos) << hosts_text(m);
  std::ostringstream js;
  render_comparison(m, Format::kJson, js);
  EXPECT_EQ(nlohmann::json::parse(js.str()).at("warnings").at(0), expected);
  ASSERT_FALSE(s.exp.gate_rules.empty());
  std::ostringstream gate;
  render_gate(evaluate_gate(s.exp.gate_rules, m), Format::kText, gate);
  EXPECT_NE(gate.str().find("warning: " + expected), std::string::npos) << gate.str();
}

TEST(HostWarnings, DifferentAcceleratorsAndASideSpanningHosts) {
  Sessions s = quickstart();
  for (RunRecord& r : s.cand) r.provenance.accel = "kvm";
  s.base.front().provenance.host.hostname = "node2";
  const auto w = provenance_warnings({"a", "", s.base}, {"b", "", s.cand});
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(
      w[0],
      "BASE ran on node2, testhost, CAND on testhost: timings of different hosts do not compare");
  EXPECT_EQ(w[1], "BASE's runs span 2 hosts (node2, testhost)");
  EXPECT_EQ(w[2],
            "BASE ran under tcg, CAND under kvm: timings of different accelerators do not compare");
}

TEST(HostWarnings, FailedRunsDoNotCount) {
  Sessions s = quickstart();
  s.cand.front().provenance.host.hostname = "node2";
  s.cand.front().status = "failed";
  EXPECT_TRUE(provenance_warnings({"a", "", s.base}, {"b", "", s.cand}).empty());
}

TEST(ReportHosts, ListsTheRunsOfEachHostOnlyWhenHostsDiffer) {
  Sessions s = quickstart();
  const SessionReport one = build_session_report(s.exp, s.base);
  EXPECT_TRUE(one.runs_by_host.empty());
  EXPECT_EQ(session_text(one).find("runs per host"), std::string::npos);

  ASSERT_GE(s.base.size(), 2u);
  s.base.back().provenance.host.hostname = "node2";
  const SessionReport two = build_session_report(s.exp, s.base);
  ASSERT_EQ(two.runs_by_host.size(), 2u);
  EXPECT_EQ(two.runs_by_host.at("node2"), std::vector<std::string>{s.base.back().id.run_id});
  EXPECT_EQ(two.runs_by_host.at("testhost").size(), s.base.size() - 1);
  EXPECT_NE(
      session_text(two).find("runs per host:\n  node2 (1 run):\n    " + s.base.back().id.run_id +
                             "\n  testhost (" + std::to_string(s.base.size() - 1) +
                             " runs):\n    " + s.base.front().id.run_id),
      std::string::npos)
      << session_text(two);
}

TEST(ReportHosts, PooledVariantNamesEveryHost) {
  Sessions s = quickstart();
  std::vector<RunRecord> base = s.base, cand = s.cand;
  for (RunRecord& r : cand) r.provenance.host.hostname = "node2";
  base.insert(base.end(), cand.begin(), cand.end());  // each group pools a run from each host
  const ComparisonModel m = compare_sides({"a", "", base}, {"b", "", cand}, {});
  ASSERT_FALSE(m.groups.empty());
  EXPECT_EQ(m.groups[0].variants[0].host, "node2+testhost");
  EXPECT_EQ(m.groups[0].variants[1].host, "node2");
}

}  // namespace
}  // namespace foliolab
