// The HTML report rendered for real: Debian's chromium, headless, runs the page's JavaScript
// and dumps the DOM; the test counts the SVG marks it drew and checks for script errors.
// E2E-prefixed: it starts a browser (seconds, not milliseconds).
#include "report/html.h"
#include "report/session_layout.h"
#include "testing/source_root.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <regex>
#include <set>
#include <sstream>

#include "analysis/history.h"
#include "analysis/session_report.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "testing/evidence_fixture.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

ProcessResult chromium(const fs::path& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {"chromium",
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--user-data-dir=" + (dir / "profile").string(),
                                   "--enable-logging=stderr",
                                   "--v=0",
                                   "--virtual-time-budget=10000"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  RealProcessRunner proc;
  return proc.run({.argv = argv,
                   .capture = true,
                   .capture_limit = 64 << 20,
                   .timeout = std::chrono::seconds(120)});
}

int attr(const std::string& dom, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex(name + "=\"(\\d+)\""))) return -1;
  return std::stoi(m[1]);
}

// Seed 001's size sweep: one knob set per mTHP size, a per-size counter each.
// Fake records of every run of seed 001: the fault count and the folios of each size.
std::vector<RunRecord> size_sweep_records(const Experiment& exp) {
  std::vector<RunRecord> records;
  for (const foliolab::Run& run : expand(exp)) {
    FakeRun f;
    f.kernel = exp.kernels[run.kernel].name;
    f.arch = arch_info(run.arch).name;
    f.knobs = exp.knob_sets[run.knob_set].name;
    const double kb = f.knobs == "4K" ? 4
                                      : std::stod(f.knobs.substr(0, f.knobs.size() - 1)) *
                                            (f.knobs.back() == 'M' ? 1024 : 1);
    const double faults = 65536 / kb + 1;
    f.metrics = {{"faults", {faults, faults}}, {"sys_s", {0.2, 0.25}}};
    if (f.knobs != "4K") {
      const auto n = static_cast<int64_t>(65536 / kb);
      f.deltas[fmt::format("mthp.{}kB.anon_fault_alloc", static_cast<int>(kb))] = {n, n};
    }
    RunRecord r = fake_record(f);
    r.id.run_id = run.id;
    records.push_back(r);
  }
  return records;
}

TEST(E2EHtmlReport, SeedSizeSweepDrawsInChromium) {
  auto exp = load_experiment((kSourceRoot / "experiments/seeds/001-anon-mthp.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const std::vector<RunRecord> records = size_sweep_records(*exp);
  size_t expected_dots = 0, expected_bars = 0;
  const SessionReport report = build_session_report(*exp, records);
  for (const ComparisonGroup& g : report.model.groups) {
    size_t sizes = 0;
    for (const MetricRow& row : g.rows) {
      if (row.metric.starts_with("mthp.")) ++sizes;
      if (row.metric.starts_with("mthp.") || row.metric.starts_with("vmstat.")) continue;
      for (const SampleStats& s : row.stats) expected_dots += s.values.size();
    }
    expected_bars += sizes * g.variants.size();
  }
  ASSERT_GT(expected_bars, 0u);
  const fs::path dir = fresh_test_dir("foliolab-html");
  std::ostringstream html;
  write_html(report.model, session_extra_lines(report), html);
  ASSERT_TRUE(write_file_atomic(dir / "report.html", html.str()).ok());
  EXPECT_EQ(html.str().find("http://"), html.str().find("http://www.w3.org/2000/svg"));  // offline

  const ProcessResult r = chromium(dir, {"--dump-dom", "file://" + (dir / "report.html").string()});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.output.substr(0, 4000);
  const std::string& dom = r.output;
  EXPECT_EQ(dom.find("data-error"), std::string::npos) << "JavaScript error";
  EXPECT_EQ(dom.find("Uncaught"), std::string::npos) << "console error";
  const int plots = attr(dom, "data-plots");
  const int marks = attr(dom, "data-marks");
  EXPECT_GT(plots, 0);
  // Count the drawn marks in the DOM itself, not only the page's own tally.
  size_t circles = 0, bars = 0;
  for (size_t p = 0; (p = dom.find("<circle", p)) != std::string::npos; ++p) ++circles;
  for (size_t p = 0; (p = dom.find("class=\"mark bar\"", p)) != std::string::npos; ++p) ++bars;
  EXPECT_EQ(circles, expected_dots);
  EXPECT_EQ(bars, expected_bars);
  EXPECT_EQ(static_cast<size_t>(marks), expected_dots + expected_bars);
  // The knob state and provenance tables are there too.
  EXPECT_NE(dom.find("knob state"), std::string::npos);
  EXPECT_NE(dom.find("provenance"), std::string::npos);
  fs::remove_all(dir);
}

// A monitored experiment (issue 29): each rep's samples of each monitored counter drawn as one
// line on that counter's plot, both variants overlaid; a fragmented and a fresh variant warn that
// their states differ.
TEST(E2EHtmlReport, MonitoredRepsDrawTimeSeriesInChromium) {
  auto exp = parse_experiment(R"(name: mon
kernels: [{name: k}]
archs: [x86_64]
knobs: {"4K": {hugepages-64kB/enabled: never}, "64K": {hugepages-64kB/enabled: always}}
workloads: [{name: fault}]
monitor: {period: 100ms, counters: [vmstat.pswpout, meminfo.MemFree]}
)",
                              "mon.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  std::vector<RunRecord> records;
  for (const foliolab::Run& run : expand(*exp)) {
    FakeRun f;
    f.knobs = exp->knob_sets[run.knob_set].name;
    f.kernel = "k";
    f.metrics = {{"faults", {100, 100, 100}}};
    RunRecord r = fake_record(f);
    r.id.run_id = run.id;
    for (Repetition& rep : r.reps) {
      rep.monitor = {100,
                     {"vmstat.pswpout", "meminfo.MemFree"},
                     {0, 100, 200, 300},
                     {{0, 10 * rep.rep, 40, 90}, {5000, 4000, 3000, 2500}}};
    }
    if (f.knobs == "64K") r.prepared = {{"fragment", {{"status", "ok"}, {"method", "thpscale"}}}};
    records.push_back(r);
  }
  const SessionReport report = build_session_report(*exp, records);
  ASSERT_EQ(report.model.groups.size(), 1u);
  const ComparisonGroup& g = report.model.groups[0];
  ASSERT_EQ(g.monitors.size(), 2u);            // one plot per counter
  EXPECT_EQ(g.monitors[0].traces.size(), 6u);  // 2 variants x 3 reps
  EXPECT_NE(std::find_if(g.warnings.begin(), g.warnings.end(),
                         [](const std::string& w) {
                           return w.find(
                                      "machine states differ: 4K was prepared by [nothing], "
                                      "64K by [fragment thpscale]") != std::string::npos;
                         }),
            g.warnings.end());
  const fs::path dir = fresh_test_dir("foliolab-html-monitor");
  std::ostringstream html;
  write_html(report.model, session_extra_lines(report), html);
  ASSERT_TRUE(write_file_atomic(dir / "report.html", html.str()).ok());
  const ProcessResult r = chromium(dir, {"--dump-dom", "file://" + (dir / "report.html").string()});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.output.substr(0, 4000);
  const std::string& dom = r.output;
  EXPECT_EQ(dom.find("data-error"), std::string::npos) << "JavaScript error";
  EXPECT_EQ(attr(dom, "data-monitors"), 12);  // 2 counters x 6 reps
  size_t lines = 0;
  for (size_t p = 0; (p = dom.find("class=\"trace\"", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 12u);
  EXPECT_NE(dom.find("vmstat.pswpout during each repetition"), std::string::npos);
  fs::remove_all(dir);
}

// A history of two series over 12 sessions, one with a 20 % step at the 7th: one dashed marker
// between the 6th and 7th session on its plot, its change point table, none on the other.
TEST(E2EHtmlReport, HistoryMarksAChangePointInChromium) {
  std::vector<IndexedSample> samples;
  for (int s = 0; s < 12; ++s) {
    for (const char* knobs : {"4K", "64K"}) {
      IndexedRun run{.session = fmt::format("nightly/202611{:02}T000000Z", s + 1),
                     .stamp = fmt::format("202611{:02}T000000Z", s + 1),
                     .experiment = "nightly",
                     .kernel = "6.12",
                     .arch = "x86_64",
                     .knob_set = knobs,
                     .workload = "fault",
                     .timing = "icount"};
      const double level = std::string(knobs) == "64K" && s >= 6 ? 0.12 : 0.10;
      for (int rep = 0; rep < 3; ++rep) {
        samples.push_back({run, rep, level * (1 + 0.004 * ((s * 7 + rep * 3) % 5 - 2))});
      }
    }
  }
  HistoryModel h = build_history("sys_s", samples);
  find_change_points(h);
  ASSERT_EQ(h.series.size(), 2u);
  ASSERT_EQ(h.series[1].change_points.size(), 1u);
  ASSERT_EQ(h.series[1].change_points[0].index, 6u);
  EXPECT_TRUE(h.series[0].change_points.empty());

  const fs::path dir = fresh_test_dir("foliolab-html-history");
  std::ostringstream html;
  write_html(h, html);
  ASSERT_TRUE(write_file_atomic(dir / "history.html", html.str()).ok());
  const ProcessResult r =
      chromium(dir, {"--dump-dom", "file://" + (dir / "history.html").string()});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.output.substr(0, 4000);
  const std::string& dom = r.output;
  EXPECT_EQ(dom.find("data-error"), std::string::npos) << "JavaScript error";
  EXPECT_EQ(attr(dom, "data-plots"), 2);
  EXPECT_EQ(attr(dom, "data-marks"), 24);
  EXPECT_EQ(attr(dom, "data-changepoints"), 1);
  size_t markers = 0;
  for (size_t p = 0; (p = dom.find("class=\"changepoint\"", p)) != std::string::npos; ++p) {
    ++markers;
  }
  EXPECT_EQ(markers, 1u);
  // The table names the sessions either side and the change.
  const size_t table = dom.find("class=\"changepoints\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(dom.find("20261106T000000Z", table), std::string::npos);
  EXPECT_NE(dom.find("20261107T000000Z", table), std::string::npos);
  EXPECT_NE(dom.find("+20.", table), std::string::npos);
  EXPECT_NE(dom.find("change points: 1 in 1 of 2 series"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

// 4K against 64K mTHP with kernel evidence (testing/evidence_fixture.h): the page draws the
// latency's histogram (one outline per variant) and lays out the ranked evidence and the census.
TEST(E2EHtmlReport, KernelEvidenceDrawsHistogramsAndTheCensusInChromium) {
  const std::vector<RunRecord> a = {evidence_run("4K", 3, 1)}, b = {evidence_run("64K", 3, 2)};
  GroupRuns in;
  in.title = "6.12-mthp-vmstat · x86_64 · fault";
  in.variants = {{"4K", {&a[0]}, ""}, {"64K", {&b[0]}, ""}};
  ComparisonModel model;
  model.kind = "compare";
  model.title = "4K → 64K";
  model.groups.push_back(compare_group(in, {}));
  const fs::path dir = fresh_test_dir("foliolab-html-evidence");
  std::ostringstream html;
  write_html(model, {}, html);
  ASSERT_TRUE(write_file_atomic(dir / "report.html", html.str()).ok());
  const ProcessResult r = chromium(dir, {"--dump-dom", "file://" + (dir / "report.html").string()});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.output.substr(0, 4000);
  const std::string& dom = r.output;
  EXPECT_EQ(dom.find("data-error"), std::string::npos) << "JavaScript error";
  EXPECT_EQ(attr(dom, "data-histograms"), 1);
  size_t outlines = 0;
  for (size_t p = 0; (p = dom.find("class=\"bins\"", p)) != std::string::npos; ++p) ++outlines;
  EXPECT_EQ(outlines, 2u);  // a variant each
  EXPECT_NE(dom.find("folio census · "), std::string::npos);
  EXPECT_NE(dom.find("kernel evidence · "), std::string::npos);
  EXPECT_NE(dom.find("kprobe.folio_zero_user"), std::string::npos);
  // The profile's rows are in the evidence table, not drawn as dot plots.
  EXPECT_EQ(dom.find("func.fn_10</div>"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
