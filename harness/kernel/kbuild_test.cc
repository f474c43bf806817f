// make's argv and environment for both builders, the arch facts taken from ArchInfo.
#include "kernel/kbuild.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

using Argv = std::vector<std::string>;

TEST(Kbuild, HeadersNeedNoCompilerButACrossPrefix) {
  EXPECT_EQ(Kbuild(Arch::kArm64, "/w/tree", "/o").argv({"headers"}),
            (Argv{"make", "-C", "/w/tree", "O=/o", "ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-",
                  "headers"}));
  EXPECT_EQ(Kbuild(Arch::kX86_64, "/w/tree", "/o").argv({"headers"}),
            (Argv{"make", "-C", "/w/tree", "O=/o", "ARCH=x86_64", "headers"}));
}

TEST(Kbuild, KernelBuildsGetTheKernelCompilerCcacheAndAReproducibleEnvironment) {
  Kbuild arm(Arch::kArm64, "/w/tree", "/w/tree/.foliolab-o-arm64-x");
  arm.with_compiler(true, "/c/ccache", "0123456789abcdef");
  EXPECT_EQ(arm.argv({"-j2", "Image"}),
            (Argv{"make", "-C", "/w/tree", "O=/w/tree/.foliolab-o-arm64-x", "ARCH=arm64",
                  "CC=ccache aarch64-linux-gnu-gcc", "CROSS_COMPILE=aarch64-linux-gnu-", "-j2",
                  "Image"}));
  EXPECT_TRUE(arm.ccache());
  EXPECT_EQ(arm.env().at("KBUILD_BUILD_TIMESTAMP"), "foliolab-0123456789abcdef");
  EXPECT_EQ(arm.env().at("CCACHE_DIR"), "/c/ccache");
  EXPECT_EQ(arm.env().at("CCACHE_BASEDIR"), "/w/tree");
  // A miss runs the compiler alone (no preprocessor pass first).
  EXPECT_EQ(arm.env().at("CCACHE_DEPEND"), "1");
  EXPECT_EQ(arm.env().at("CCACHE_INODECACHE"), "1");
  Kbuild x86(Arch::kX86_64, "/w/tree", "/o");
  x86.with_compiler(false, "/c/ccache", "b");
  EXPECT_FALSE(x86.ccache());
  EXPECT_EQ(x86.reproduce({"-j4", "vmlinux"}),
            "cd /w/tree && make O=/o ARCH=x86_64 CC=gcc -j4 vmlinux");
}

}  // namespace
}  // namespace foliolab
