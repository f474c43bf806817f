// The kernel evidence as the text, Markdown and JSON renderers show it: its rows out of the main
// table and in their own, largest change first; the distributions' pooled quantiles; the census
// side by side.
#include "report/evidence_layout.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/comparison_layout.h"
#include "report/json.h"
#include "report/markdown.h"
#include "testing/evidence_fixture.h"

namespace foliolab {
namespace {

ComparisonModel four_k_against_64k(const std::vector<RunRecord>& a,
                                   const std::vector<RunRecord>& b) {
  GroupRuns in;
  in.title = "6.12-mthp-vmstat · x86_64 · fault";
  in.variants = {{"4K", {&a[0]}, ""}, {"64K", {&b[0]}, ""}};
  ComparisonModel model;
  model.kind = "compare";
  model.groups.push_back(compare_group(in, {}));
  return model;
}

const TextTable* titled(const Document& doc, const std::string& prefix) {
  for (const TextTable& t : doc.tables) {
    if (t.title.starts_with(prefix)) return &t;
  }
  return nullptr;
}

TEST(EvidenceLayout, RankedRowsQuantilesAndCensusAreTablesOfTheirOwn) {
  const std::vector<RunRecord> a = {evidence_run("4K", 3, 1)}, b = {evidence_run("64K", 3, 2)};
  const Document doc = layout_comparison(four_k_against_64k(a, b), /*full=*/false);
  ASSERT_EQ(doc.tables.size(), 4u);  // main, evidence, distributions, census
  for (const auto& row : doc.tables[0].rows) EXPECT_EQ(row[0], "faults");  // the only non-evidence
  const TextTable* ranked = titled(doc, "kernel evidence · ");
  ASSERT_TRUE(ranked);
  EXPECT_EQ(ranked->header, (std::vector<std::string>{"metric", "unit", "4K", "64K", "change",
                                                      "95% CI", "verdict"}));
  EXPECT_EQ(ranked->rows[0][6], "changed");  // from zero, first
  EXPECT_EQ(ranked->rows[0][3], "1,024");
  const TextTable* dists = titled(doc, "distributions · ");
  ASSERT_TRUE(dists);
  ASSERT_EQ(dists->rows.size(), 2u);
  EXPECT_EQ(dists->rows[1][0], "kprobe.handle_mm_fault.latency_ns (ns)");
  EXPECT_EQ(dists->rows[1][2], "3,180");  // values pooled over 3 reps
  const TextTable* census = titled(doc, "folio census · ");
  ASSERT_TRUE(census);
  EXPECT_EQ(census->header, (std::vector<std::string>{"kind", "size", "folios 4K", "folios 64K",
                                                      "kb 4K", "kb 64K"}));
  EXPECT_EQ(census->rows[1],
            (std::vector<std::string>{"anon", "64K", "0", "1,024", "0", "65,536"}));
}

TEST(EvidenceLayout, MarkdownAndJsonCarryTheEvidence) {
  const std::vector<RunRecord> a = {evidence_run("4K", 3, 1)}, b = {evidence_run("64K", 3, 2)};
  const ComparisonModel model = four_k_against_64k(a, b);
  std::ostringstream md;
  write_markdown(model, {}, md);
  EXPECT_NE(md.str().find("folio census · "), std::string::npos);
  const nlohmann::json j = comparison_json(model);
  const nlohmann::json& e = j["groups"][0]["evidence"];
  EXPECT_GT(e["ranked"].size(), 50u);
  EXPECT_EQ(e["distributions"][0]["metric"], "kprobe.handle_mm_fault.latency_ns");
  EXPECT_EQ(e["census"]["rows"][1]["means"][0], nlohmann::json::parse("[0, 1024]"));
}

}  // namespace
}  // namespace foliolab
