// Reports that read well (issue 18, item 5): every metric a custom workload declares is in the
// report, a one-variant group still gets a table of n, mean and CI, one warning line per
// metric, the text verdict beside the numbers, HTML axes in SI (16.4k) with CIs clipped at zero
// for metrics that cannot be negative. Models are built from testing/record_fixture.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/session_report.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "report/cells.h"
#include "report/comparison_layout.h"
#include "report/html.h"
#include "report/render.h"
#include "report/text.h"
#include "testing/record_fixture.h"
#include "util/text.h"

namespace foliolab {
namespace {
using json = nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> starting_with(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& l : lines_of(text)) {
    if (l.starts_with(prefix)) out.push_back(l);
  }
  return out;
}

// A custom workload read by a pattern, one knob set: the user's own number, 11 in every rep.
constexpr const char* kRegexYaml = R"(name: mine
kernels:
  - name: k
archs: [x86_64]
knobs:
  "only": {enabled: always}
workloads:
  - name: custom
    params: {source: probe.c, output: regex}
    metrics:
      value: 'value: (\d+)'
repeat: 3
)";

SessionReport regex_session() {
  auto exp = parse_experiment(kRegexYaml, "mine.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  std::vector<RunRecord> records;
  for (const Run& run : expand(*exp)) {
    FakeRun f;
    f.experiment = "mine";
    f.kernel = "k";
    f.knobs = "only";
    f.workload = "custom";
    f.metrics = {{"value", {11, 11, 11}}};
    RunRecord r = fake_record(f);
    r.id.run_id = run.id;
    records.push_back(r);
  }
  EXPECT_EQ(records.size(), 1u);
  // The pattern alone declares the metric.
  const MetricDecls declared = declared_metrics(*exp);
  EXPECT_TRUE(std::any_of(declared.begin(), declared.end(),
                          [](const auto& d) { return d.first == "value"; }));
  return build_session_report(*exp, records);
}

TEST(ReadableReport, RegexMetricOfOneKnobSetIsInTextAndJson) {
  const SessionReport report = regex_session();
  ASSERT_EQ(report.model.groups.size(), 1u);
  const std::string text = session_text(report);
  const auto rows = starting_with(text, "value ");
  ASSERT_EQ(rows.size(), 1u) << text;
  EXPECT_NE(rows[0].find(" 11"), std::string::npos) << text;

  std::ostringstream js;
  render_session(report, Format::kJson, js);
  const json j = json::parse(js.str());
  const json& metrics = j["groups"][0]["metrics"];
  ASSERT_EQ(metrics.size(), 1u) << js.str();
  EXPECT_EQ(metrics[0]["metric"], "value");
  EXPECT_EQ(metrics[0]["stats"][0]["mean"], 11);
  EXPECT_EQ(metrics[0]["stats"][0]["n"], 3);
}

// Two knob sets: an echoed constant of a built-in workload (fault's `page_size`) still says
// nothing, but a declared metric that is the same everywhere is shown.
TEST(ReadableReport, DeclaredConstantsShownEchoedParametersDropped) {
  FakeRun f;
  f.metrics = {{"faults", {16385, 16385, 16385}},
               {"page_size", {4096, 4096, 4096}},
               {"value", {11, 11, 11}}};
  const RunRecord a = fake_record(f);
  f.knobs = "64K mTHP";
  f.metrics["faults"] = {1025, 1025, 1025};
  const RunRecord b = fake_record(f);
  GroupRuns in{
      "k · x86_64 · fault", "k", "x86_64", "fault", "", {{"4K", {&a}, ""}, {"64K", {&b}, ""}}};
  CompareOptions options;
  options.declared = {{"value", MetricInfo{}}};
  std::vector<std::string> shown;
  for (const MetricRow& r : compare_group(in, options).rows) shown.push_back(r.metric);
  EXPECT_EQ(shown, (std::vector<std::string>{"faults", "value"}));
  // A one-variant group shows every workload metric, page_size included.
  in.variants.pop_back();
  shown.clear();
  for (const MetricRow& r : compare_group(in, {}).rows) shown.push_back(r.metric);
  EXPECT_EQ(shown, (std::vector<std::string>{"faults", "page_size", "value"}));
}

TEST(ReadableReport, OneVariantTableHasNMeanAndCi) {
  FakeRun f;
  f.metrics = {{"faults", {16385, 16385, 16385}}, {"sys_s", {0.20, 0.22, 0.21}}};
  const RunRecord a = fake_record(f);
  ComparisonModel m;
  m.groups.push_back(
      compare_group({"k · x86_64 · fault", "k", "x86_64", "fault", "4K", {{"4K", {&a}, ""}}}, {}));
  std::ostringstream text, md;
  render_comparison(m, Format::kText, text);
  render_comparison(m, Format::kMarkdown, md);
  const auto lines = lines_of(text.str());
  ASSERT_GE(lines.size(), 4u) << text.str();
  EXPECT_NE(lines[0].find("· 4K ·"), std::string::npos) << text.str();  // which knob set
  EXPECT_TRUE(lines[1].starts_with("metric")) << text.str();
  for (const char* h : {"  n", "mean", "95% CI", "CV"}) {
    EXPECT_NE(lines[1].find(h), std::string::npos) << h << "\n" << text.str();
  }
  EXPECT_EQ(text.str().find("values are medians"), std::string::npos) << text.str();
  const auto sys = starting_with(text.str(), "sys_s");
  ASSERT_EQ(sys.size(), 1u);
  // n, the mean, its t interval (0.21 ± 4.303 × 0.01 / √3) and the CV on one line.
  for (const char* cell : {" 3 ", "0.2100", "0.1852 … 0.2348", "4.8 %"}) {
    EXPECT_NE(sys[0].find(cell), std::string::npos) << cell << "\n" << text.str();
  }
  const auto faults = starting_with(text.str(), "faults");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_NE(faults[0].find("16.4k"), std::string::npos) << text.str();
  // Markdown: no change, p or verdict columns against nothing.
  EXPECT_NE(md.str().find("| metric | unit | n | median | mean ± sd | 95% CI | CV |"),
            std::string::npos)
      << md.str();
  EXPECT_EQ(md.str().find("(baseline)"), std::string::npos) << md.str();
}

// Five mTHP sizes, a noisy sys_s in each: four underpowered changes, one warning line.
TEST(ReadableReport, OneWarningPerMetricNotPerVariantPair) {
  std::vector<RunRecord> records;
  const std::vector<std::string> sizes = {"4K", "16K", "32K", "64K", "128K"};
  for (size_t i = 0; i < sizes.size(); ++i) {
    FakeRun f;
    f.knobs = sizes[i];
    f.metrics = {{"faults", {16385, 16385, 16385}}, {"sys_s", {0.10, 0.20, 0.15 + 0.01 * i}}};
    records.push_back(fake_record(f));
  }
  GroupRuns in{"k · x86_64 · fault", "k", "x86_64", "fault", "", {}};
  for (size_t i = 0; i < sizes.size(); ++i) in.variants.push_back({sizes[i], {&records[i]}, ""});
  const ComparisonGroup g = compare_group(in, {});
  std::vector<std::string> sys;
  for (const std::string& w : group_warnings(g)) {
    if (w.starts_with("sys_s")) sys.push_back(w);
  }
  ASSERT_EQ(sys.size(), 1u) << testing::PrintToString(group_warnings(g));
  EXPECT_TRUE(sys[0].starts_with("sys_s: 4 of 4 changes against 4K, first 16K: ")) << sys[0];
  // The first note's own words follow.
  const Delta& first = *g.rows[1].deltas[1];
  ASSERT_EQ(g.rows[1].metric, "sys_s");
  EXPECT_TRUE(sys[0].ends_with(delta_note(first))) << sys[0];

  ComparisonModel m;
  m.groups.push_back(g);
  std::ostringstream md;
  render_comparison(m, Format::kMarkdown, md);
  EXPECT_EQ(starting_with(md.str(), "- ⚠ sys_s").size(), 1u) << md.str();
  // A pair keeps today's line.
  in.variants.resize(2);
  std::vector<std::string> pair;
  for (const std::string& w : group_warnings(compare_group(in, {}))) {
    if (w.starts_with("sys_s")) pair.push_back(w);
  }
  ASSERT_EQ(pair.size(), 1u);
  const ComparisonGroup pg = compare_group(in, {});
  ASSERT_EQ(pg.rows[1].metric, "sys_s");
  EXPECT_EQ(pair[0], "sys_s: " + delta_note(*pg.rows[1].deltas[1]));
}

// The quickstart's rows with its longest counter name.
ComparisonModel quickstart_like(const std::string& base, const std::string& cand) {
  static std::vector<RunRecord> records;
  records.clear();
  for (bool mthp : {false, true}) {
    FakeRun f;
    f.knobs = mthp ? cand : base;
    const double faults = mthp ? 1024 : 16385;
    f.metrics = {{"faults", {faults, faults, faults}},
                 {"sys_s", {0.128, 0.131, 0.127}},
                 {"user_s", {0.003, 0.009, 0.0006}}};
    const int64_t n = mthp ? 1024 : 0;
    f.deltas = {{"mthp.64kB.anon_fault_alloc", {n, n, n}},
                {"mthp.64kB.nr_anon_partially_mapped", {0, mthp ? 1 : 0, 0}}};
    if (mthp) f.metrics["sys_s"] = {0.093, 0.092, 0.094};
    records.push_back(fake_record(f));
  }
  ComparisonModel m;
  m.groups.push_back(compare_group({"6.12-mthp-vmstat · x86_64 · fault",
                                    "6.12-mthp-vmstat",
                                    "x86_64",
                                    "fault",
                                    "",
                                    {{base, {&records[0]}, ""}, {cand, {&records[1]}, ""}}},
                                   {}));
  return m;
}

TEST(ReadableReport, TextVerdictBesideTheNumbers) {
  const ComparisonModel m = quickstart_like("4K", "64K mTHP");
  std::ostringstream out;
  render_comparison(m, Format::kText, out);
  const auto lines = lines_of(out.str());
  for (const auto& l : lines) EXPECT_LE(display_width(l), kTextWidth) << l;
  ASSERT_GE(lines.size(), 3u);
  EXPECT_NE(lines[1].find("change  verdict"), std::string::npos) << out.str();
  const auto faults = starting_with(out.str(), "faults ");
  ASSERT_EQ(faults.size(), 2u) << out.str();  // the CI and p columns come in a second block
  EXPECT_NE(faults[0].find("16.4k"), std::string::npos) << out.str();
  EXPECT_NE(faults[0].find("improved"), std::string::npos) << out.str();
  const auto sys = starting_with(out.str(), "sys_s");
  ASSERT_FALSE(sys.empty());
  // n=3: the exact rank test's p cannot go below 0.10, so the timing gets no direction.
  EXPECT_NE(sys[0].find("inconclusive"), std::string::npos) << out.str();
  // Labels too long for both medians and the verdict in 100 columns: still 100 columns, every
  // verdict still printed.
  const std::string wide(40, 'b');
  std::ostringstream narrow;
  render_comparison(quickstart_like(std::string(40, 'a'), wide), Format::kText, narrow);
  for (const auto& l : lines_of(narrow.str())) EXPECT_LE(display_width(l), kTextWidth) << l;
  const auto again = starting_with(narrow.str(), "faults ");
  ASSERT_GE(again.size(), 2u) << narrow.str();
  EXPECT_TRUE(std::any_of(again.begin(), again.end(), [](const std::string& l) {
    return l.find("improved") != std::string::npos;
  })) << narrow.str();
}

json html_data(const ComparisonModel& m) {
  std::ostringstream html;
  write_html(m, {}, html);
  const std::string page = html.str();
  const std::string open = "<script type=\"application/json\" id=\"data\">";
  const size_t from = page.find(open);
  EXPECT_NE(from, std::string::npos);
  const size_t start = from + open.size();
  return json::parse(page.substr(start, page.find("</script>", start) - start));
}

const json& html_metric(const json& data, const std::string& name) {
  for (const json& r : data["groups"][0]["metrics"]) {
    if (r["metric"] == name) return r;
  }
  static const json none;
  ADD_FAILURE() << name << " not in the page's data";
  return none;
}

TEST(ReadableReport, HtmlAxesInSiAndCisClippedAtZero) {
  const ComparisonModel m = quickstart_like("4K", "64K mTHP");
  std::ostringstream html;
  write_html(m, {}, html);
  EXPECT_EQ(html.str().find("toExponential"), std::string::npos);  // no e-notation drawn
  const json data = html_data(m);
  const json& faults = html_metric(data, "faults");
  EXPECT_EQ(faults["plot"]["lo_text"], "1024");
  EXPECT_EQ(faults["plot"]["hi_text"], "16.4k");
  // user_s: a t interval of 3 reps reaches below zero; a time cannot.
  const json& user = html_metric(data, "user_s");
  ASSERT_TRUE(user["stats"][0]["ci95"][0].is_number());
  EXPECT_LT(user["stats"][0]["ci95"][0].get<double>(), 0);  // the model keeps the interval
  EXPECT_EQ(user["plot"]["ci"][0][0], 0);                   // the plot clips it
  EXPECT_EQ(user["plot"]["lo"], 0);
  EXPECT_EQ(user["plot"]["lo_text"], "0");
  EXPECT_TRUE(user["plot"]["nonnegative"].get<bool>());
  // A gauge's delta can fall: not clipped.
  const json& gauge = html_metric(data, "mthp.64kB.nr_anon_partially_mapped");
  EXPECT_FALSE(gauge["plot"]["nonnegative"].get<bool>());
  EXPECT_LT(gauge["plot"]["ci"][1][0].get<double>(), 0);
  // Every number the page prints is written by report/number_format.
  EXPECT_EQ(html_metric(data, "mthp.64kB.anon_fault_alloc")["stats"][1]["text"], "1,024 ± 0");
  for (const json& r : data["groups"][0]["metrics"]) {
    for (const char* k : {"lo_text", "hi_text"}) {
      EXPECT_EQ(r["plot"][k].get<std::string>().find('e'), std::string::npos) << r["plot"];
    }
  }
}

}  // namespace
}  // namespace foliolab
