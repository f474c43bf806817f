// The build pipeline against a fake kernel tree and a fake `make` (tuxmake's trick): caching,
// config verification, patch failures and switching series, in milliseconds. Real patch and cp
// run; only make and the compiler are faked.
#include "kernel/builder.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "util/fs.h"
#include "util/test_dir.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class FakeMake : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    const auto& a = spec.argv;
    ProcessResult r;
    if (a[0].ends_with("gcc") && a.size() == 2) {
      r.exit_code = 0;
      r.output = "gcc (Fake) 12.2.0\n";
      return r;
    }
    if (a[0] != "make") return real_.run(spec);
    calls.push_back(a.back());
    fs::path obj;
    for (const auto& arg : a) {
      if (arg.rfind("O=", 0) == 0) obj = arg.substr(2);
    }
    r.exit_code = 0;
    if (a.back() == "tinyconfig") {
      (void)write_file_atomic(obj / ".config", "CONFIG_64BIT=y\n# CONFIG_NUMA is not set\n");
    } else if (a.back() == "olddefconfig") {
      // Drops an option whose dependencies are unmet, as kconfig would.
      auto cfg = read_file(obj / ".config");
      std::string out;
      for (size_t pos = 0, nl; pos < cfg->size(); pos = nl + 1) {
        nl = cfg->find('\n', pos);
        std::string line = cfg->substr(pos, nl - pos);
        if (line != "CONFIG_NUMA_EMU=y") out += line + "\n";
      }
      (void)write_file_atomic(obj / ".config", out);
    } else {
      (void)write_file_atomic(obj / "arch/x86/boot/bzImage", "kernel");
      (void)write_file_atomic(obj / "vmlinux", "elf with a PVH note");
    }
    return r;
  }
  std::vector<std::string> calls;
  RealProcessRunner real_;
};

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-builder");
    put("src/Makefile", "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 117\nEXTRAVERSION =\n");
    put("src/mm/memory.c", "one\ntwo\nthree\n");
    put("project/kernel-config/guest-base.config", "CONFIG_64BIT=y\n");
    put("project/kernel-config/x86_64.config", "CONFIG_NUMA=y\n");
    put("project/kernel-config/numa-emu.config", "CONFIG_NUMA_EMU=y\n");
    put("project/patches/a/series", "0001-a.patch\n");
    put("project/patches/a/0001-a.patch",
        "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
    put("project/patches/b/series", "0001-b.patch\n");
    put("project/patches/b/0001-b.patch",
        "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+THREE\n");
    put("project/patches/bad/series", "0001-bad.patch\n");
    put("project/patches/bad/0001-bad.patch",
        "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n uno\n-dos\n+DOS\n tres\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void put(const std::string& rel, const std::string& text) { ASSERT_TRUE(write_file_atomic(root_ / rel, text).ok()); }
  KernelBuilder builder() {
    return KernelBuilder(make_, {.project_root = root_ / "project", .spec_dir = root_,
                                 .cache = root_ / "cache", .jobs = 2, .use_ccache = false});
  }
  KernelSpec spec(const std::string& patches, std::vector<std::string> config = {}) {
    KernelSpec k;
    k.name = "k";
    k.source = (root_ / "src").string();
    k.patches = patches;
    k.config = std::move(config);
    return k;
  }
  fs::path tree() {
    for (const auto& e : fs::directory_iterator(root_ / "cache/work")) {
      if (e.is_directory()) return e.path() / "tree";
    }
    return {};
  }
  fs::path root_;
  FakeMake make_;
};

TEST_F(BuilderTest, SecondBuildWithNothingChangedDoesNotRunMake) {
  auto b = builder();
  auto first = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_FALSE(first->cache_hit);
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"tinyconfig", "olddefconfig", "bzImage"}));
  EXPECT_EQ(first->version, "6.12.117");
  EXPECT_EQ(*read_file(first->image), "kernel");
  make_.calls.clear();
  auto second = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cache_hit);
  EXPECT_TRUE(make_.calls.empty());
  EXPECT_EQ(second->build_id, first->build_id);
  // A changed patch is a different kernel.
  put("project/patches/a/0001-a.patch",
      "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n-two\n+Two\n three\n");
  auto third = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_NE(third->build_id, first->build_id);
}

// An x86_64 kernel with a PVH entry point keeps vmlinux and boots it directly; without PVH (or
// cached before vmlinux was kept) it boots its bzImage.
TEST_F(BuilderTest, PvhKernelKeepsVmlinuxAsItsBootImage) {
  auto plain = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->boot_image, plain->image);
  EXPECT_FALSE(fs::exists(plain->dir / "vmlinux"));
  put("project/kernel-config/x86_64.config", "CONFIG_NUMA=y\nCONFIG_PVH=y\n");
  auto pvh = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(pvh.ok()) << pvh.error().message;
  EXPECT_NE(pvh->build_id, plain->build_id);
  EXPECT_EQ(pvh->boot_image, pvh->dir / "vmlinux");
  EXPECT_EQ(*read_file(pvh->boot_image), "elf with a PVH note");
  EXPECT_EQ(pvh->image.filename(), "bzImage");  // the kernel's identity stays its bzImage
  auto hit = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(hit.ok());
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(hit->boot_image, pvh->boot_image);
}

TEST_F(BuilderTest, DroppedConfigOptionIsAnErrorNamingIt) {
  auto r = builder().build(spec("", {"numa-emu"}), Arch::kX86_64);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("CONFIG_NUMA_EMU=y (from numa-emu) ended up not set"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(std::count(make_.calls.begin(), make_.calls.end(), "bzImage"), 0);
}

TEST_F(BuilderTest, PatchThatDoesNotApplyNamesPatchAndHunkAndLeavesTheUsersTreeAlone) {
  auto r = builder().build(spec("bad"), Arch::kX86_64);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("patch 0001-bad.patch (1/1 in series bad)"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("mm/memory.c: hunk #1 FAILED"), std::string::npos) << r.error().message;
  EXPECT_EQ(*read_file(root_ / "src/mm/memory.c"), "one\ntwo\nthree\n");
}

TEST_F(BuilderTest, SwitchingSeriesRestoresWhatThePreviousSeriesChanged) {
  auto b = builder();
  ASSERT_TRUE(b.build(spec("a"), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\nTWO\nthree\n");
  ASSERT_TRUE(b.build(spec("b"), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\ntwo\nTHREE\n");  // a's change is gone
  ASSERT_TRUE(b.build(spec(""), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\ntwo\nthree\n");
  EXPECT_EQ(*read_file(root_ / "src/mm/memory.c"), "one\ntwo\nthree\n");  // the source is untouched
}

}  // namespace
}  // namespace foliolab
