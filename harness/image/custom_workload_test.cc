#include "image/custom_workload.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

std::string elf(unsigned machine) {
  std::string b(64, '\0');
  b.replace(0, 4,
            "\x7f"
            "ELF");
  b[18] = static_cast<char>(machine & 0xff);
  b[19] = static_cast<char>(machine >> 8);
  return b;
}

TEST(CustomWorkload, SplitsArgumentsOnBlanksWithoutAShell) {
  EXPECT_EQ(split_args("  -n 5\t--x='a b' ;rm"),
            (std::vector<std::string>{"-n", "5", "--x='a", "b'", ";rm"}));
}

TEST(CustomWorkload, RejectsABinaryForTheOtherArch) {
  EXPECT_TRUE(check_elf_arch(elf(62), Arch::kX86_64, "p").ok());
  EXPECT_TRUE(check_elf_arch(elf(183), Arch::kArm64, "p").ok());
  auto st = check_elf_arch(elf(62), Arch::kArm64, "probe-x86");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("guest is arm64"), std::string::npos) << st.error().message;
  EXPECT_FALSE(check_elf_arch("#!/bin/sh\n", Arch::kX86_64, "script").ok());
}

TEST(CustomWorkload, NeedsExactlyOneOfSourceAndProgram) {
  RealProcessRunner runner;
  WorkloadSpec w;
  w.name = "custom";
  w.label = "probe";
  auto r = custom_workload_files(runner, w, Arch::kX86_64, "/tmp", "/tmp");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exactly one of params.source"), std::string::npos);
  WorkloadSpec builtin;
  builtin.name = "fault";
  auto none = custom_workload_files(runner, builtin, Arch::kX86_64, "/tmp", "/tmp");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace foliolab
