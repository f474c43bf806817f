#include "analysis/table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace foliolab {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

size_t display_pos(const std::string& line, const std::string& needle) {
  const size_t byte = line.find(needle);
  if (byte == std::string::npos) return std::string::npos;
  size_t cols = 0;
  for (size_t i = 0; i < byte; ++i) cols += (static_cast<unsigned char>(line[i]) & 0xc0) != 0x80;
  return cols;
}

TEST(Table, FormatHelpers) {
  EXPECT_EQ(format_number(2669684.890, 3), "2,669,684.890");
  EXPECT_EQ(format_number(83516.416, 0), "83,516");
  EXPECT_EQ(format_number(999.96, 1), "1,000.0");
  EXPECT_EQ(format_number(-1234.5, 1), "-1,234.5");
  EXPECT_EQ(format_number(-0.0001, 2), "0.00");
  EXPECT_EQ(format_number(0.04, 2), "0.04");
  EXPECT_EQ(format_number(NAN, 2), "n/a");
  EXPECT_EQ(format_ratio(8.1234), "×8.12");
  EXPECT_EQ(format_ratio(31.96), "×32.0");
  EXPECT_EQ(format_ratio(0.0313), "×0.031");
  EXPECT_EQ(format_ratio(NAN), "n/a");
  EXPECT_EQ(format_p(0.0031), "p=0.003");
  EXPECT_EQ(format_p(0.0002), "p<0.001");
  EXPECT_EQ(format_p(NAN), "p=n/a");
}

TEST(Table, TwoVariantsWithRatios) {
  std::vector<Variant> v = {
      {"base", {{"faults_per_sec", {83000, 84000, 83500, 83600, 83400}},
                {"sys_s", {3.10, 3.12, 3.08, 3.11, 3.09}}}},
      {"mthp-64k", {{"faults_per_sec", {677000, 678000, 676000, 679000, 680000}},
                    {"sys_s", {0.40, 0.41, 0.39, 0.40, 0.40}}}},
  };
  const std::vector<std::string> metrics = {"faults_per_sec", "sys_s"};
  const std::string t = format_table("fault, 4K vs 64K", v, metrics, {});
  SCOPED_TRACE("\n" + t);
  auto l = lines(t);
  ASSERT_EQ(l.size(), 4u);  // title, header, two rows, no warnings
  EXPECT_EQ(l[0], "fault, 4K vs 64K");
  EXPECT_NE(l[1].find("variant"), std::string::npos);
  EXPECT_NE(l[1].find("vs base"), std::string::npos);
  // Decimals: enough for two significant stddev digits, the same for the whole column.
  EXPECT_NE(l[2].find("83,500 ± 361"), std::string::npos);
  EXPECT_NE(l[2].find("3.1000 ± 0.0158"), std::string::npos);
  EXPECT_NE(l[3].find("678,000 ± 1,581"), std::string::npos);
  EXPECT_NE(l[3].find("×8.12 (p<0.001)"), std::string::npos);
  EXPECT_NE(l[3].find("×0.129 (p<0.001)"), std::string::npos);
  // Columns line up (in display columns, "±" and "×" are one column each).
  EXPECT_EQ(display_pos(l[1], "faults_per_sec"), display_pos(l[2], "83,500"));
  EXPECT_EQ(display_pos(l[2], "83,500"), display_pos(l[3], "678,000"));
  EXPECT_EQ(display_pos(l[1], "sys_s"), display_pos(l[2], "3.100"));
  EXPECT_EQ(display_pos(l[2], "3.1000"), display_pos(l[3], "0.4000"));
  EXPECT_EQ(display_pos(l[1], " n "), display_pos(l[3], " 5 "));
}

TEST(Table, PValueReflectsWelch) {
  std::vector<Variant> v = {{"a", {{"m", {10, 11, 9, 10, 10}}}},
                            {"b", {{"m", {10.5, 11.5, 9.5, 10, 10.5}}}}};
  const std::vector<std::string> metrics = {"m"};
  const std::string t = format_table("", v, metrics, {});
  // Welch: t=0.8729, df=7.982, p=0.40822 (mpmath reference).
  EXPECT_NE(t.find("10.40 ± 0.74  ×1.04 (p=0.408)"), std::string::npos) << t;
}

TEST(Table, WarningsForSmallNAndEmulation) {
  std::vector<Variant> v = {
      {"base", {{"faults", {100, 100, 100}}, {"wall_s", {1.0}}}},
      {"new", {{"faults", {50, 50, 50}}, {"wall_s", {0.5, 0.6}}}},
  };
  const std::vector<std::string> metrics = {"faults", "wall_s"};
  TableOptions opt;
  opt.emulated = true;
  const std::string t = format_table("tcg", v, metrics, opt);
  SCOPED_TRACE("\n" + t);
  EXPECT_NE(t.find("warning: timings are TCG emulation timings; compare ratios only"),
            std::string::npos);
  EXPECT_NE(t.find("warning: base: fewer than 2 samples for wall_s: no aggregate"),
            std::string::npos);
  EXPECT_NE(t.find("warning: base: fewer than 5 samples for faults: low statistical power"),
            std::string::npos);
  EXPECT_NE(t.find("warning: new vs base, faults: zero variance in both, no p-value"),
            std::string::npos);
  EXPECT_NE(t.find("×0.500 (p=n/a)"), std::string::npos);  // deterministic counts: ratio only
  auto l = lines(t);
  EXPECT_NE(l[2].find("1-3"), std::string::npos);  // n differs between metrics
  EXPECT_NE(l[3].find("n/a"), std::string::npos);  // wall_s ratio against a single sample
}

TEST(Table, SingleVariantHasNoRatioColumn) {
  std::vector<Variant> v = {{"only", {{"x", {1, 2, 3, 4, 5}}}}};
  const std::vector<std::string> metrics = {"x", "missing"};
  const std::string t = format_table("", v, metrics, {});
  EXPECT_EQ(t.find("vs "), std::string::npos) << t;
  EXPECT_NE(t.find("3.0 ± 1.6"), std::string::npos) << t;
  EXPECT_NE(t.find("fewer than 2 samples for missing"), std::string::npos) << t;
  EXPECT_EQ(format_table("", {}, metrics, {}), "variant  n  x  missing\n");
}

}  // namespace
}  // namespace foliolab
