#include "kernel/kconfig.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

TEST(Kconfig, ParsesSetAndNotSetAndRejectsGarbage) {
  auto r =
      parse_fragment("# comment\nCONFIG_A=y\n\n# CONFIG_B is not set\nCONFIG_S=\"x y\"\n", "frag");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[1].option, "CONFIG_B");
  EXPECT_EQ((*r)[1].value, "n");
  EXPECT_EQ((*r)[2].value, "\"x y\"");
  auto bad = parse_fragment("CONFIG_A=y\nNUMA=y\n", "numa");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "numa:2: not a Kconfig line: NUMA=y");
}

TEST(Kconfig, LaterFragmentsWin) {
  auto merged = merge_requests(
      {{{"CONFIG_A", "y", "base"}, {"CONFIG_P", "y", "base"}}, {{"CONFIG_A", "n", "arm64-64k"}}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].value, "n");
  EXPECT_EQ(merged[0].origin, "arm64-64k");
}

TEST(Kconfig, ApplyReplacesAndAppends) {
  std::string out =
      apply_requests("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=y\n",
                     {{"CONFIG_B", "y", "f"}, {"CONFIG_A", "n", "f"}, {"CONFIG_D", "64", "f"}});
  EXPECT_EQ(out, "# CONFIG_A is not set\nCONFIG_B=y\nCONFIG_C=y\nCONFIG_D=64\n");
}

// How far apart two .configs are: options set differently, "not set" and absent alike.
TEST(Kconfig, ConfigDistanceCountsOptionsSetDifferently) {
  const std::string a = "CONFIG_SMP=y\nCONFIG_NR_CPUS=8\n# CONFIG_NUMA is not set\n";
  EXPECT_EQ(config_distance(a, a), 0u);
  EXPECT_EQ(config_distance(a, "CONFIG_SMP=y\nCONFIG_NR_CPUS=8\n"), 0u);  // absent = not set
  EXPECT_EQ(config_distance(a, "CONFIG_SMP=y\nCONFIG_NR_CPUS=64\nCONFIG_NUMA=y\n"), 2u);
  EXPECT_EQ(config_distance("CONFIG_SMP=y\n", "CONFIG_SMP=y\nCONFIG_SWAP=y\n"), 1u);
  EXPECT_EQ(config_distance("CONFIG_SMP=y\nCONFIG_SWAP=y\n", "CONFIG_SMP=y\n"), 1u);
}

TEST(Kconfig, VerifyReportsOptionDroppedByOlddefconfig) {
  // NUMA_EMU needs X86_64_ACPI_NUMA...; olddefconfig dropped it: the final .config lacks it.
  std::vector<ConfigRequest> want = {{"CONFIG_NUMA", "y", "numa"},
                                     {"CONFIG_NUMA_EMU", "y", "numa"},
                                     {"CONFIG_DEBUG_FS", "n", "base"},
                                     {"CONFIG_NR_CPUS", "8", "base"}};
  const std::string final_config =
      "CONFIG_NUMA=y\n# CONFIG_DEBUG_VM is not set\nCONFIG_NR_CPUS=64\n";
  auto bad = verify_config(want, final_config);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].request.option, "CONFIG_NUMA_EMU");
  EXPECT_EQ(bad[0].actual, "n");
  EXPECT_EQ(bad[1].actual, "64");
  std::string text = describe_mismatches(bad);
  EXPECT_NE(text.find("CONFIG_NUMA_EMU=y (from numa) ended up not set"), std::string::npos);
  EXPECT_NE(text.find("CONFIG_NR_CPUS=8 (from base) ended up as 64"), std::string::npos);
}

// What tinyconfig + olddefconfig read besides the requests: a patch to anything else (a .c file,
// a header, a Makefile below the top, another arch's defconfig) leaves the .config as it was.
TEST(Kconfig, KconfigInputsAreWhatConfiguringReads) {
  for (const char* rel :
       {"Kconfig", "mm/Kconfig", "arch/x86/Kconfig.debug", "kernel/configs/tiny.config",
        "kernel/configs/tiny-base.config", "arch/x86/configs/tiny.config", "scripts/kconfig/conf.c",
        "scripts/Kconfig.include", "scripts/cc-version.sh", "Makefile"}) {
    EXPECT_TRUE(is_kconfig_input(rel)) << rel;
  }
  for (const char* rel : {"mm/memory.c", "mm/Makefile", "include/linux/vm_event_item.h",
                          "arch/x86/configs/x86_64_defconfig", "kernel/configs/debug.config",
                          "scripts/dtc/update-dtc-source.sh", "Documentation/Kbuild.rst"}) {
    EXPECT_FALSE(is_kconfig_input(rel)) << rel;
  }
}

}  // namespace
}  // namespace foliolab
