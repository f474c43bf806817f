#include "report/number_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace foliolab {
namespace {

TEST(NumberFormat, FormatHelpers) {
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

TEST(NumberFormat, CompactAndChange) {
  EXPECT_EQ(format_compact(1025), "1025");
  EXPECT_EQ(format_compact(16384), "16.4k");
  EXPECT_EQ(format_compact(677900), "678k");
  EXPECT_EQ(format_compact(1234567), "1.23M");
  EXPECT_EQ(format_compact(3.14159), "3.142");
  EXPECT_EQ(format_compact(0.012346), "0.01235");
  EXPECT_EQ(format_compact(-16384), "-16.4k");
  EXPECT_EQ(format_compact(NAN), "n/a");
  EXPECT_EQ(format_change(-0.9374), "-93.7 %");
  EXPECT_EQ(format_change(0.012), "+1.2 %");
  EXPECT_EQ(format_change(15), "+1500 %");
  EXPECT_EQ(format_change(0), "0 %");
  EXPECT_EQ(format_change(NAN), "n/a");
}

TEST(NumberFormat, FormatValue) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(1024), "1024");
  EXPECT_EQ(format_value(0.0625), "0.0625");
  EXPECT_EQ(format_value(16.0213), "16.02");
  EXPECT_EQ(format_value(123456.78), "123456.8");
}

}  // namespace
}  // namespace foliolab
