#include "kernel/source.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

// The head of Debian's linux-source-6.12 (6.12.117) Makefile, verbatim: EXTRAVERSION is empty
// and NAME follows on the next line.
constexpr const char* kMakefile612 = R"(# SPDX-License-Identifier: GPL-2.0
VERSION = 6
PATCHLEVEL = 12
SUBLEVEL = 117
EXTRAVERSION =
NAME = Baby Opossum Posse

# *DOCUMENTATION*
# To see a list of typical targets execute "make help"
KERNELVERSION = $(VERSION)$(if $(PATCHLEVEL),.$(PATCHLEVEL)$(if $(SUBLEVEL),.$(SUBLEVEL)))$(EXTRAVERSION)
)";

TEST(SourceTest, VersionFromTheReal612MakefileHeadWithEmptyExtraversion) {
  EXPECT_EQ(makefile_kernel_version(kMakefile612), "6.12.117");
}

TEST(SourceTest, VersionKeepsSublevelZeroAndExtraversionAsKbuildDoes) {
  EXPECT_EQ(
      makefile_kernel_version("VERSION = 6\nPATCHLEVEL = 13\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n"
                              "NAME = Baby Opossum Posse\n"),
      "6.13.0-rc1");
  EXPECT_EQ(makefile_kernel_version("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 3\nEXTRAVERSION =\r\n"
                                    "NAME = x\r\n"),
            "6.12.3");
  EXPECT_EQ(makefile_kernel_version("VERSION=6\nPATCHLEVEL=1\nSUBLEVEL=\nEXTRAVERSION=\n"), "6.1");
}

TEST(SourceTest, NoVersionLineGivesNothing) {
  EXPECT_EQ(makefile_kernel_version("# not a kernel\nKERNELVERSION = 1\n"), "");
}

}  // namespace
}  // namespace foliolab
