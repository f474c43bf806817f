// Renderers: the text fits 100 columns for every shipped experiment; Markdown, CSV and JSON
// carry the same model; the gate's JUnit validates against the JUnit schema with xmllint.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/gate.h"
#include "analysis/history.h"
#include "analysis/pairing.h"
#include "analysis/session_report.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "report/junit.h"
#include "report/render.h"
#include "report/text.h"
#include "testing/record_fixture.h"
#include "testing/source_root.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"
#include "util/text.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

// Plausible, wide numbers for every metric a run of this workload could print, and the
// counters the report shows.
RunRecord synthetic(const Experiment& exp, const Run& run, double scale) {
  FakeRun f;
  f.experiment = exp.name;
  f.kernel = exp.kernels[run.kernel].name;
  f.arch = arch_info(run.arch).name;
  f.knobs = exp.knob_sets[run.knob_set].name;
  f.workload = exp.workloads[run.workload].label;
  const double k = scale * (1 + static_cast<double>(run.knob_set));
  for (const char* m : {"faults", "faults_per_sec", "faults_per_sec_per_cpu", "user_s", "sys_s",
                        "wall_s", "rss_kb", "anon_huge_kb", "rss_kb_after", "remote_pages",
                        "underused_split_fraction", "ns_per_access", "vmrss_kb"}) {
    f.metrics[m] = {1234567.891 * k, 1234000.5 * k, 1235999.25 * k};
  }
  for (const char* c :
       {"vmstat.thp_fault_alloc", "vmstat.thp_underused_split_page", "vmstat.mthp_anon_fault_alloc",
        "vmstat.pgfault", "vmstat.thp_split_page", "meminfo.AnonHugePages",
        "meminfo.ShmemHugePages", "mthp.2048kB.anon_fault_alloc", "mthp.64kB.shmem_alloc",
        "mthp.1024kB.anon_fault_alloc_fallback"}) {
    const auto v = static_cast<int64_t>(987654321 * k);
    f.deltas[c] = {v, v + 1, v - 1};
  }
  RunRecord r = fake_record(f);
  r.id.run_id = run.id;
  return r;
}

std::vector<fs::path> shipped_experiments() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(kSourceRoot / "experiments")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void expect_fits(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    EXPECT_LE(display_width(line), kTextWidth) << what << " line " << n << ": " << line;
  }
  EXPECT_GT(n, 3) << what;
}

TEST(Render, TextFits100ColumnsForEveryShippedExperiment) {
  const auto files = shipped_experiments();
  ASSERT_GE(files.size(), 7u);  // quickstart, nightly, five seeds
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    auto exp = load_experiment(file.string());
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    std::vector<RunRecord> base, cand;
    for (const foliolab::Run& run : expand(*exp)) {
      base.push_back(synthetic(*exp, run, 1));
      cand.push_back(synthetic(*exp, run, 1.5));
    }
    const SessionReport report = build_session_report(*exp, base);
    ASSERT_FALSE(report.model.groups.empty());
    expect_fits(session_text(report), "report " + file.filename().string());
    const ComparisonModel m =
        compare_sides({"base-session", "", base}, {"cand-session", "", cand}, {});
    std::ostringstream text;
    render_comparison(m, Format::kText, text);
    expect_fits(text.str(), "compare " + file.filename().string());
    if (!exp->gate_rules.empty()) {
      std::ostringstream gate;
      render_gate(evaluate_gate(exp->gate_rules, m), Format::kText, gate);
      expect_fits(gate.str(), "gate " + file.filename().string());
    }
  }
}

// The quickstart, and a candidate whose 64K knob set is `never`: faults and the 64K
// allocations regress.
struct QuickstartPair {
  Experiment exp;
  std::vector<RunRecord> base, cand;
};

QuickstartPair quickstart_pair() {
  QuickstartPair p;
  auto exp = load_experiment((kSourceRoot / "experiments/quickstart.yaml").string());
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  p.exp = *exp;
  for (const foliolab::Run& run : expand(p.exp)) {
    FakeRun f;
    f.arch = arch_info(run.arch).name;
    f.knobs = p.exp.knob_sets[run.knob_set].name;
    const bool mthp = f.knobs == "64K mTHP";
    f.metrics = {{"faults", {mthp ? 1025.0 : 16385, mthp ? 1025.0 : 16385, mthp ? 1025.0 : 16385}},
                 {"cpu_s", {0.20, 0.22, 0.21}}};
    const int64_t alloc = mthp ? 1024 : 0;
    f.deltas = {{"mthp.64kB.anon_fault_alloc", {alloc, alloc, alloc}}};
    RunRecord r = fake_record(f);
    r.id.run_id = run.id;
    p.base.push_back(r);
    if (mthp) {  // the candidate's 64K set was `never`
      for (Repetition& rep : r.reps) {
        rep.metrics["faults"] = 16385;
        rep.deltas["mthp.64kB.anon_fault_alloc"] = 0;
      }
    }
    p.cand.push_back(r);
  }
  return p;
}

TEST(Render, GateFailsOn64KNeverAndWritesValidJUnit) {
  const QuickstartPair p = quickstart_pair();
  ASSERT_FALSE(p.exp.gate_rules.empty());
  CompareOptions options;
  for (const GateRule& r : p.exp.gate_rules) options.keep.push_back(r.metric);
  const GateReport report = evaluate_gate(
      p.exp.gate_rules, compare_sides({"tag:good", "", p.base}, {"tonight", "", p.cand}, options));
  EXPECT_FALSE(report.ok());
  std::set<std::string> failed;
  for (const GateCase& c : report.cases) {
    if (c.outcome == GateOutcome::kFail) failed.insert(c.metric + " @ " + c.group);
    if (c.metric == "cpu_s") {
      EXPECT_EQ(c.outcome, GateOutcome::kSkip);  // TCG: counts only
    }
  }
  EXPECT_EQ(failed,
            (std::set<std::string>{
                "faults @ 6.12-mthp-vmstat · x86_64 · 64K mTHP · fault",
                "faults @ 6.12-mthp-vmstat · arm64 · 64K mTHP · fault",
                "mthp.64kB.anon_fault_alloc @ 6.12-mthp-vmstat · x86_64 · 64K mTHP · fault",
                "mthp.64kB.anon_fault_alloc @ 6.12-mthp-vmstat · arm64 · 64K mTHP · fault"}));

  const fs::path dir = fresh_test_dir("foliolab-junit");
  std::ostringstream xml;
  write_junit(report, "quickstart <nightly> & co", xml);
  ASSERT_TRUE(write_file_atomic(dir / "gate.xml", xml.str()).ok());
  RealProcessRunner proc;
  const ProcessResult r =
      proc.run({.argv = {"xmllint", "--noout", "--schema",
                         (kSourceRoot / "harness/report/testdata/junit.xsd").string(),
                         (dir / "gate.xml").string()},
                .capture = true,
                .timeout = std::chrono::seconds(60)});
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.output;
  EXPECT_NE(xml.str().find("<failure message=\"regressed: 1025 → 16.4k"), std::string::npos)
      << xml.str();
  // A damaged document must not validate: the check can fail.
  ASSERT_TRUE(write_file_atomic(dir / "bad.xml", "<testsuites><testcase/></testsuites>").ok());
  EXPECT_FALSE(proc.run({.argv = {"xmllint", "--noout", "--schema",
                                  (kSourceRoot / "harness/report/testdata/junit.xsd").string(),
                                  (dir / "bad.xml").string()},
                         .capture = true,
                         .timeout = std::chrono::seconds(60)})
                   .ok());
  fs::remove_all(dir);

  // The same pair of sessions as the baseline itself: every count unchanged, the gate passes.
  const GateReport same =
      evaluate_gate(p.exp.gate_rules, compare_sides({"a", "", p.base}, {"b", "", p.base}, options));
  EXPECT_TRUE(same.ok());
}

TEST(Render, FormatsCarryTheSameModel) {
  const QuickstartPair p = quickstart_pair();
  const ComparisonModel m = compare_sides({"base", "", p.base}, {"cand", "", p.cand}, {});
  std::ostringstream js, csv, md, text;
  render_comparison(m, Format::kJson, js);
  render_comparison(m, Format::kCsv, csv);
  render_comparison(m, Format::kMarkdown, md);
  render_comparison(m, Format::kText, text);
  const json j = json::parse(js.str());
  EXPECT_EQ(j.at("schema"), kComparisonSchema);
  EXPECT_EQ(j.at("groups").size(), 4u);
  EXPECT_EQ(j["groups"][1]["metrics"][0]["vs_first"][1]["verdict"], "regressed");
  EXPECT_NE(csv.str().find("group,kernel,arch,workload,variant,metric"), std::string::npos);
  EXPECT_NE(md.str().find("| metric | unit | variant | n |"), std::string::npos);
  EXPECT_NE(text.str().find("regressed"), std::string::npos);
  EXPECT_NE(text.str().find("cpu_s†"), std::string::npos);  // an emulated timing is marked
  // One warning line per table.
  std::istringstream in(text.str());
  int warnings = 0;
  for (std::string line; std::getline(in, line);) warnings += line.starts_with("warning:");
  EXPECT_EQ(warnings, 4);
}

TEST(Render, HistoryFromIndexedSamples) {
  std::vector<IndexedSample> samples;
  for (int s = 0; s < 3; ++s) {
    IndexedRun run;
    run.session = "quickstart/2026113" + std::to_string(s) + "T000000Z";
    run.stamp = "2026113" + std::to_string(s) + "T000000Z";
    run.kernel = "k";
    run.arch = "x86_64";
    run.knob_set = "4K";
    run.workload = "fault";
    for (int rep = 0; rep < 3; ++rep) samples.push_back({run, rep, 16385.0 + rep + s});
  }
  const HistoryModel h = build_history("faults", samples);
  ASSERT_EQ(h.series.size(), 1u);
  ASSERT_EQ(h.series[0].points.size(), 3u);
  EXPECT_DOUBLE_EQ(h.series[0].points[2].stats.mean, 16388);
  std::ostringstream text, js;
  render_history(h, Format::kText, text);
  expect_fits(text.str(), "history");
  render_history(h, Format::kJson, js);
  EXPECT_EQ(json::parse(js.str()).at("schema"), kHistorySchema);
}

}  // namespace
}  // namespace foliolab
