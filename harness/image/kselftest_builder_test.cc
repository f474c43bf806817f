// The kselftest build pipeline against a fake kernel tree, a fake `make headers` and a fake
// compiler (real cp and patch): the programs come from the series-patched tree, are cached by
// its content, and a program the tree lacks is an error only when a run asks for it.
#include "image/kselftest_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/fake_kernel_tree.h"
#include "testing/fake_process_runner.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kMm = "src/tools/testing/selftests/mm/";

// gcc --version, make headers (creates <O=>/usr/include), and compilers that write an ELF
// header for x86_64 whose body is the program's first source, so a test can see what was built.
class FakeToolchain : public FakeProcessRunner {
 public:
  FakeToolchain() {
    version("gcc (Fake) 12.2.0");
    on(program("make"), [this](const ProcessSpec& spec) {
      calls.push_back("make " + spec.argv.back());
      if (auto obj = arg_value(spec.argv, "O="); !obj.empty()) {
        fs::create_directories(fs::path(obj) / "usr/include/linux");
      }
      return ok();
    });
    on(program_suffix("gcc"), [this](const ProcessSpec& spec) {
      const std::string out = spec.argv.back();
      std::string source;
      for (const auto& arg : spec.argv) {
        if (arg.ends_with(".c") && source.empty()) source = *read_file(arg);
      }
      calls.push_back("cc " + fs::path(out).filename().string());
      std::string elf(
          "\x7f"
          "ELF",
          4);
      elf.resize(20, '\0');
      elf[18] = 62;  // EM_X86_64
      (void)write_file_atomic(out, elf + source);
      return ok();
    });
  }
  std::vector<std::string> calls;
};

class KselftestBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.linux_source("src", 117, "");  // mm/memory.c is what makes a directory a Linux tree
    for (const char* p : {"split_huge_page_test", "khugepaged", "cow", "transhuge-stress"}) {
      tree_.put(std::string(kMm) + p + ".c", std::string(p) + " one\ntwo\n");
    }
    tree_.put("src/tools/mm/thp_swap_allocator_test.c", "swap allocator\n");
    tree_.put("project/patches/a/series", "0001-a.patch\n");
    tree_.put("project/patches/a/0001-a.patch",
              "--- a/tools/testing/selftests/mm/cow.c\n+++ b/tools/testing/selftests/mm/cow.c\n"
              "@@ -1,2 +1,2 @@\n cow one\n-two\n+PATCHED\n");
  }
  KselftestBuilder builder() {
    return KselftestBuilder(
        fake_,
        {.data_root = tree_ / "project", .spec_dir = tree_.path(), .cache = tree_ / "cache"});
  }
  KernelSpec kernel(const std::string& patches) {
    return KernelSpec{.name = "k", .source = (tree_ / "src").string(), .patches = patches};
  }
  // A file's data; for a program, without the fake ELF header.
  static std::string content(const std::vector<CpioEntry>& files, const std::string& path) {
    for (const auto& f : files) {
      if (f.path == path)
        return f.data.starts_with(
                   "\x7f"
                   "ELF")
                   ? f.data.substr(20)
                   : f.data;
    }
    return "(absent)";
  }
  FakeKernelTree tree_{"foliolab-kselftest"};
  FakeToolchain fake_;
};

TEST_F(KselftestBuilderTest, BuiltFromThePatchedTreeAndCached) {
  auto b = builder();
  const WorkloadSpec w{
      .name = "kselftest-mm", .label = "ks", .params = {{"tests", "cow transhuge-stress"}}};
  auto files = b.job_files(w, kernel("a"), Arch::kX86_64);
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(content(*files, "job/kselftest/cow"), "cow one\nPATCHED\n");
  EXPECT_EQ(content(*files, "job/kselftest/transhuge-stress.args"), "-d\n10\n64\n");
  EXPECT_EQ(content(*files, "job/kselftest/khugepaged"), "(absent)");  // not asked for
  EXPECT_EQ(fake_.calls, (std::vector<std::string>{"make headers", "cc split_huge_page_test",
                                                   "cc khugepaged", "cc cow", "cc transhuge-stress",
                                                   "cc thp_swap_allocator_test"}));
  // Same tree: nothing runs again. Another series: another build, from that tree.
  fake_.calls.clear();
  ASSERT_TRUE(b.job_files(w, kernel("a"), Arch::kX86_64).ok());
  EXPECT_TRUE(fake_.calls.empty());
  auto pristine = b.job_files(w, kernel(""), Arch::kX86_64);
  ASSERT_TRUE(pristine.ok());
  EXPECT_EQ(content(*pristine, "job/kselftest/cow"), "cow one\ntwo\n");
  EXPECT_EQ(fake_.calls.size(), 6u);
}

// thp-swap-allocator ships tools/mm/thp_swap_allocator_test alone, from the same build.
TEST_F(KselftestBuilderTest, SwapAllocatorComesFromToolsMm) {
  auto b = builder();
  auto files = b.job_files(WorkloadSpec{.name = "thp-swap-allocator", .label = "tsa"}, kernel(""),
                           Arch::kX86_64);
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(content(*files, "job/kselftest/thp_swap_allocator_test"), "swap allocator\n");
  EXPECT_EQ(content(*files, "job/kselftest/thp_swap_allocator_test.args"), "");
  EXPECT_EQ(content(*files, "job/kselftest/cow"), "(absent)");
}

TEST_F(KselftestBuilderTest, ProgramTheTreeLacksIsAnErrorOnlyWhenAsked) {
  auto b = builder();
  auto build = b.build(kernel(""), Arch::kX86_64);
  ASSERT_TRUE(build.ok()) << build.error().message;
  ASSERT_EQ(build->missing.count("uffd-wp-mremap"), 1u);
  EXPECT_EQ(build->missing.at("uffd-wp-mremap"),
            "tools/testing/selftests/mm/uffd-wp-mremap.c is not in this tree (Linux 6.12.117)");
  const WorkloadSpec w{
      .name = "kselftest-mm", .label = "ks", .params = {{"tests", "cow uffd-wp-mremap"}}};
  auto files = b.job_files(w, kernel(""), Arch::kX86_64);
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.error().message,
              HasSubstr("mm selftest uffd-wp-mremap is not available from kernel k's tree"));
  // The arm64 guest refuses an x86_64 binary.
  auto arm = b.job_files(WorkloadSpec{.name = "kselftest-mm", .params = {{"tests", "cow"}}},
                         kernel(""), Arch::kArm64);
  ASSERT_FALSE(arm.ok());
  EXPECT_THAT(arm.error().message, HasSubstr("built for ELF machine 62"));
}

TEST(KselftestBuilder, CompileArgv) {
  EXPECT_EQ(kselftest_compile_argv("aarch64-linux-gnu-gcc", "/w/tree", "/o/uapi", "/o/gen",
                                   "tools/testing/selftests/mm", "cow",
                                   {"vm_util.c", "thp_settings.c"}, "/o/cow"),
            (std::vector<std::string>{"aarch64-linux-gnu-gcc",
                                      "-static",
                                      "-Wall",
                                      "-O2",
                                      "-U_FORTIFY_SOURCE",
                                      "-I",
                                      "/o/gen",
                                      "-I",
                                      "/w/tree",
                                      "-isystem",
                                      "/o/uapi/include",
                                      "-isystem",
                                      "/w/tree/tools/include/uapi",
                                      "/w/tree/tools/testing/selftests/mm/cow.c",
                                      "/w/tree/tools/testing/selftests/mm/vm_util.c",
                                      "/w/tree/tools/testing/selftests/mm/thp_settings.c",
                                      "-lrt",
                                      "-lpthread",
                                      "-lm",
                                      "-o",
                                      "/o/cow"}));
}

}  // namespace
}  // namespace foliolab
