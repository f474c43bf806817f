// Another arch's programs at image build time (issue 20): the private binfmt_misc registration
// and the `__foreign-exec` command line; the namespaces themselves are for the e2e tests.
#include "image/foreign_exec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace foliolab {
namespace {

using ::testing::ElementsAre;

// binfmt_misc is per user namespace since Linux 6.7.
TEST(ForeignExec, PerUserNamespaceBinfmtFromTheKernelRelease) {
  EXPECT_TRUE(binfmt_per_user_namespace("6.7.0"));
  EXPECT_TRUE(binfmt_per_user_namespace("6.18.1-cloud-amd64"));
  EXPECT_TRUE(binfmt_per_user_namespace("7.0"));
  EXPECT_FALSE(binfmt_per_user_namespace("6.6.30"));
  EXPECT_FALSE(binfmt_per_user_namespace("5.19.0"));
  EXPECT_FALSE(binfmt_per_user_namespace("linux"));
}

TEST(ForeignExec, BinfmtRegistrationForArm64IsQemusMagicAndMask) {
  EXPECT_EQ(binfmt_registration(Arch::kArm64, "/usr/bin/qemu-aarch64-static"),
            R"(:foliolab-arm64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00)"
            R"(\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff)"
            R"(\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:FOC)");
}

TEST(ForeignExec, BinfmtRegistrationForX86_64) {
  EXPECT_EQ(binfmt_registration(Arch::kX86_64, "/usr/bin/qemu-x86_64-static"),
            R"(:foliolab-x86_64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00)"
            R"(\x02\x00\x3e\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff)"
            R"(\xff\xfe\xff\xff\xff:/usr/bin/qemu-x86_64-static:FOC)");
}

TEST(ForeignExec, ArgvIsSelfCommandArchSeparatorThenTheProgram) {
  EXPECT_THAT(foreign_exec_argv("/usr/bin/foliolab", Arch::kArm64,
                                {"chroot", "/tmp/root", "sed", "-i", "s/a b/c/", "/etc/x"}),
              ElementsAre("/usr/bin/foliolab", "__foreign-exec", "arm64", "--", "chroot",
                          "/tmp/root", "sed", "-i", "s/a b/c/", "/etc/x"));
  EXPECT_THAT(foreign_exec_argv("foliolab", Arch::kX86_64, {"true"}),
              ElementsAre("foliolab", "__foreign-exec", "x86_64", "--", "true"));
}

TEST(ForeignExec, MainRefusesABadCommandLineBeforeForking) {
  EXPECT_EQ(foreign_exec_main({}), 2);
  EXPECT_EQ(foreign_exec_main({"arm64", "true"}), 2);          // no "--"
  EXPECT_EQ(foreign_exec_main({"arm64", "--"}), 2);            // no program
  EXPECT_EQ(foreign_exec_main({"sparc64", "--", "true"}), 2);  // unknown arch
}

}  // namespace
}  // namespace foliolab
