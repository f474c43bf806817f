// `foliolab doctor` against the one package list, and the real binary with a PATH holding only
// some of the programs.
#include "cli/doctor_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<PackageEntry> shipped_list() {
  const fs::path path = package_list_path(source_dir());
  auto text = read_file(path);
  EXPECT_TRUE(text.ok()) << path;
  auto list = parse_package_list(text.ok() ? *text : "", path.string());
  EXPECT_TRUE(list.ok()) << list.error().message;
  return list.ok() ? *list : std::vector<PackageEntry>{};
}

TEST(PackageList, SectionsProgramsAndReasonsAreRead) {
  auto list = parse_package_list("# c\n[run]\ne2fsprogs mkfs.ext4 debugfs  # images\nlibx\n", "p");
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].section, "run");
  EXPECT_EQ((*list)[0].programs, (std::vector<std::string>{"mkfs.ext4", "debugfs"}));
  EXPECT_EQ((*list)[0].why, "images");
  EXPECT_TRUE((*list)[1].programs.empty());
  auto bad = parse_package_list("git\n", "p.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("p.txt:1: package 'git' before the first [section]"));
}

TEST(Doctor, TheTableListsEveryProgramTheHarnessRunsWithItsPackage) {
  const DoctorReport r =
      check_programs(shipped_list(), [](const std::string& p) { return "/usr/bin/" + p; });
  EXPECT_TRUE(r.missing.empty());
  for (const char* program :
       {"gcc", "make", "git", "patch", "aarch64-linux-gnu-gcc", "qemu-system-x86_64",
        "qemu-system-aarch64", "mmdebstrap", "arch-test", "mkfs.ext4", "debugfs", "e2fsck",
        "qemu-aarch64-static", "ccache", "flex", "bison", "bc"}) {
    EXPECT_THAT(r.table, HasSubstr(std::string("\n") + program + " ")) << program;
  }
  for (const PackageEntry& e : shipped_list()) {
    if (e.section == "run" && !e.programs.empty()) {
      EXPECT_THAT(r.table, HasSubstr(e.package));
    }
    if (e.section == "test") {
      EXPECT_THAT(r.table, Not(HasSubstr(" " + e.package + " ")));
    }
  }
}

ProcessResult doctor_with_path(const fs::path& bin) {
  RealProcessRunner proc;
  return proc.run({.argv = {cli_binary(), "doctor"},
                   .env = {{"PATH", bin.string()}, {"FOLIOLAB_ROOT", ""}},
                   .capture = true,
                   .timeout = std::chrono::seconds(60)});
}

TEST(Doctor, APathWithoutARunProgramFailsNamingTheAptGetLine) {
  ScopedTestDir bin("foliolab-doctor");
  for (const PackageEntry& e : shipped_list()) {
    for (const std::string& p : e.programs) {
      if (p == "qemu-system-aarch64" || p == "arch-test") continue;
      ASSERT_TRUE(write_file_atomic(bin / p, "#!/bin/sh\n").ok());
      ::chmod((bin / p).c_str(), 0755);
    }
  }
  ProcessResult r = doctor_with_path(bin.path());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("sudo apt-get install qemu-system-arm arch-test"));
  EXPECT_THAT(r.output, HasSubstr("MISSING"));
  ASSERT_TRUE(write_file_atomic(bin / "qemu-system-aarch64", "#!/bin/sh\n").ok());
  ASSERT_TRUE(write_file_atomic(bin / "arch-test", "#!/bin/sh\n").ok());
  ::chmod((bin / "qemu-system-aarch64").c_str(), 0755);
  ::chmod((bin / "arch-test").c_str(), 0755);
  r = doctor_with_path(bin.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the main job can run"));
}

}  // namespace
}  // namespace foliolab::cli

namespace foliolab::cli {
namespace {

TEST(DoctorMachine, ACacheDiskTooSmallForTheFirstRunBlocksIt) {
  EXPECT_TRUE(check_cache_disk("/c", kMinCacheFreeBytes - 1).blocks);
  const MachineCheck low = check_cache_disk("/c", kMinCacheFreeBytes);
  EXPECT_FALSE(low.blocks);
  EXPECT_THAT(low.verdict, HasSubstr("low for root filesystems"));
  const MachineCheck fine = check_cache_disk("/c", kLowCacheFreeBytes);
  EXPECT_FALSE(fine.blocks);
  EXPECT_EQ(fine.verdict, "16.0 GiB free for /c");
}

TEST(DoctorMachine, ForeignArchImagesSayWhichWayTheyAreMade) {
  EXPECT_THAT(check_foreign("6.18.1-amd64", true, true).verdict, HasSubstr("binfmt_misc"));
  EXPECT_THAT(check_foreign("6.1.0-27-amd64", true, true).verdict,
              HasSubstr("second-stage arm64 guest (kernel 6.1.0-27-amd64 has no per-namespace"));
  EXPECT_THAT(check_foreign("6.18.1", false, true).verdict, HasSubstr("no qemu-user-static"));
  EXPECT_THAT(check_foreign("6.18.1", true, false).verdict, HasSubstr("apt-get install arch-test"));
}

TEST(DoctorMachine, KvmIsReportedNeverRequired) {
  EXPECT_FALSE(check_kvm(false, false, false, "").blocks);
  EXPECT_THAT(check_kvm(false, false, false, "").verdict, HasSubstr("TCG"));
  EXPECT_THAT(check_kvm(true, true, false, "QEMU -accel kvm failed").verdict,
              HasSubstr("unusable: QEMU -accel kvm failed"));
  EXPECT_THAT(check_kvm(true, true, true, "").verdict, HasSubstr("smoke test passed"));
}

}  // namespace
}  // namespace foliolab::cli
