#include "model/known_issue.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "util/build_info.h"

namespace foliolab {
namespace {

std::string known_issue_error(const std::string& yaml) {
  auto r = parse_known_issues(yaml, "k.yaml");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

const char* kEntry =
    "known_issues:\n"
    "  - id: mm-1\n"
    "    runs: {arch: arm64, knobs: 64K}\n"
    "    metric: faults\n"
    "    regressed: <= 8%\n"
    "    url: https://example.org\n"
    "    expires: 2027-01-31\n";

TEST(KnownIssueFile, TheShippedExampleParses) {
  const auto path = std::filesystem::path(source_dir()) / "examples/known-issues.yaml";
  auto issues = load_known_issues(path.string());
  ASSERT_TRUE(issues.ok()) << issues.error().message;
  ASSERT_EQ(issues->size(), 3u);
  EXPECT_EQ((*issues)[0].effect, KnownEffect::kValue);
  EXPECT_EQ((*issues)[1].effect, KnownEffect::kRegressed);
  EXPECT_DOUBLE_EQ((*issues)[1].amount, 0.02);
  EXPECT_EQ((*issues)[1].runs.arch, Arch::kArm64);
  EXPECT_EQ((*issues)[2].effect, KnownEffect::kFlaky);
  EXPECT_TRUE((*issues)[2].runs.empty());
}

TEST(KnownIssueFile, AnEntryReadsEveryField) {
  auto issues = parse_known_issues(kEntry, "k.yaml");
  ASSERT_TRUE(issues.ok()) << issues.error().message;
  const KnownIssue& k = issues->at(0);
  EXPECT_EQ(k.id, "mm-1");
  EXPECT_EQ(k.runs.knobs, "64K");
  EXPECT_EQ(k.metric, "faults");
  EXPECT_EQ(k.effect, KnownEffect::kRegressed);
  EXPECT_DOUBLE_EQ(k.amount, 0.08);
  EXPECT_EQ(k.url, "https://example.org");
  EXPECT_EQ(k.expires_text, "2027-01-31");
  EXPECT_EQ(k.loc.line, 2);
}

TEST(KnownIssueFile, ErrorsAreLocated) {
  std::string typo = kEntry;
  typo.replace(typo.find("expires"), 7, "expiers");
  EXPECT_EQ(known_issue_error(typo).rfind("k.yaml:7:5: ", 0), 0u) << known_issue_error(typo);
  EXPECT_NE(known_issue_error(typo).find("did you mean 'expires'"), std::string::npos)
      << known_issue_error(typo);
  std::string bad_date = kEntry;
  bad_date.replace(bad_date.find("2027-01-31"), 10, "2027-02-30");
  EXPECT_NE(known_issue_error(bad_date).find("k.yaml:7:14: "), std::string::npos)
      << known_issue_error(bad_date);
  EXPECT_NE(known_issue_error(bad_date).find("expected a date YYYY-MM-DD, got '2027-02-30'"),
            std::string::npos);
  std::string no_expiry = kEntry;
  no_expiry.erase(no_expiry.find("    expires"));
  EXPECT_NE(known_issue_error(no_expiry).find("expires"), std::string::npos)
      << known_issue_error(no_expiry);
  EXPECT_EQ(known_issue_error(no_expiry).rfind("k.yaml:2:", 0), 0u) << known_issue_error(no_expiry);
  std::string bad_pct = kEntry;
  bad_pct.replace(bad_pct.find("<= 8%"), 5, "8");
  EXPECT_NE(known_issue_error(bad_pct).find("k.yaml:5:16: "), std::string::npos)
      << known_issue_error(bad_pct);
  std::string two = kEntry;
  two.insert(two.find("    url"), "    flaky: true\n");
  EXPECT_NE(known_issue_error(two).find("give one expected effect"), std::string::npos)
      << known_issue_error(two);
  std::string bad_arch = kEntry;
  bad_arch.replace(bad_arch.find("arm64"), 5, "arm65");
  EXPECT_NE(known_issue_error(bad_arch).find("k.yaml:3:18"), std::string::npos)
      << known_issue_error(bad_arch);
  std::string twice =
      std::string(kEntry) + std::string(kEntry).substr(std::string(kEntry).find("  - id"));
  EXPECT_NE(known_issue_error(twice).find("duplicate id 'mm-1'"), std::string::npos)
      << known_issue_error(twice);
}

TEST(KnownIssueFile, DatesAreStrictCalendarDates) {
  EXPECT_TRUE(parse_iso_date("2028-02-29"));
  EXPECT_FALSE(parse_iso_date("2027-02-29"));
  EXPECT_FALSE(parse_iso_date("2027-1-31"));
  EXPECT_FALSE(parse_iso_date("2027-13-01"));
  EXPECT_FALSE(parse_iso_date("31.01.2027"));
}

}  // namespace
}  // namespace foliolab
