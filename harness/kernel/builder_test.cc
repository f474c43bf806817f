// The build pipeline against a fake kernel tree and a fake `make` (tuxmake's trick): caching,
// config verification, patch failures and switching series, in milliseconds. Real patch and cp
// run; only make and the compiler are faked.
#include "kernel/builder.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "testing/fake_kernel_tree.h"
#include "testing/fake_make.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.linux_source("src", 117, "one\ntwo\nthree\n");
    tree_.base_config();
    tree_.put("project/kernel-config/numa-emu.config", "CONFIG_NUMA_EMU=y\n");
    tree_.put("project/patches/a/series", "0001-a.patch\n");
    tree_.put("project/patches/a/0001-a.patch",
              "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
    tree_.put("project/patches/b/series", "0001-b.patch\n");
    tree_.put(
        "project/patches/b/0001-b.patch",
        "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+THREE\n");
    tree_.put("project/patches/bad/series", "0001-bad.patch\n");
    tree_.put("project/patches/bad/0001-bad.patch",
              "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n uno\n-dos\n+DOS\n tres\n");
  }
  KernelBuilder builder() {
    return KernelBuilder(make_, {.data_root = tree_ / "project",
                                 .spec_dir = tree_.path(),
                                 .cache = tree_ / "cache",
                                 .jobs = 2,
                                 .use_ccache = false});
  }
  KernelSpec spec(const std::string& patches, std::vector<std::string> config = {}) {
    KernelSpec k;
    k.name = "k";
    k.source = (tree_ / "src").string();
    k.patches = patches;
    k.config = std::move(config);
    return k;
  }
  fs::path tree() {
    for (const auto& e : fs::directory_iterator(tree_ / "cache/work")) {
      if (e.is_directory()) return e.path() / "tree";
    }
    return {};
  }
  FakeKernelTree tree_{"foliolab-builder"};
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
  tree_.put("project/patches/a/0001-a.patch",
            "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n-two\n+Two\n three\n");
  auto third = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_NE(third->build_id, first->build_id);
}

// An x86_64 kernel with a PVH entry point builds and keeps only vmlinux and boots it directly
// (a bzImage would be compressed for nothing); without PVH it boots its bzImage.
TEST_F(BuilderTest, PvhKernelBuildsOnlyVmlinuxAndBootsIt) {
  auto plain = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->boot_image, plain->image);
  EXPECT_FALSE(fs::exists(plain->dir / "vmlinux"));
  tree_.put("project/kernel-config/x86_64.config", "CONFIG_NUMA=y\nCONFIG_PVH=y\n");
  make_.calls.clear();
  auto pvh = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(pvh.ok()) << pvh.error().message;
  EXPECT_NE(pvh->build_id, plain->build_id);
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"tinyconfig", "olddefconfig", "vmlinux"}));
  EXPECT_EQ(pvh->boot_image, pvh->dir / "vmlinux");
  EXPECT_EQ(pvh->image, pvh->boot_image);
  EXPECT_EQ(*read_file(pvh->boot_image), "elf with a PVH note");
  EXPECT_FALSE(fs::exists(pvh->dir / "bzImage"));
  auto hit = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(hit.ok());
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(hit->boot_image, pvh->boot_image);
  EXPECT_EQ(hit->image, pvh->image);
}

// Kernels cached before the bzImage went kept bzImage and vmlinux: they boot vmlinux, their image
// stays the bzImage; those cached before vmlinux was kept boot their bzImage.
TEST_F(BuilderTest, OlderCacheEntriesLoad) {
  const std::string meta =
      R"({"schema": 1, "kernel": "old", "arch": "x86_64", "version": "6.12.117",
                               "build_seconds": 12.5, "series": "", "source": {"describe": "d"}})";
  tree_.put("cache/kernels/1111111111111111/kernel.json", meta);
  tree_.put("cache/kernels/1111111111111111/bzImage", "kernel");
  tree_.put("cache/kernels/1111111111111111/vmlinux", "elf");
  auto both = load_kernel_artifact(tree_ / "cache/kernels/1111111111111111", Arch::kX86_64);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->image.filename(), "bzImage");
  EXPECT_EQ(both->boot_image.filename(), "vmlinux");
  EXPECT_EQ(both->build_id, "1111111111111111");
  EXPECT_EQ(both->build_seconds, 12.5);
  EXPECT_EQ(both->source, "d");
  tree_.put("cache/kernels/2222222222222222/kernel.json", meta);
  tree_.put("cache/kernels/2222222222222222/bzImage", "kernel");
  auto plain = load_kernel_artifact(tree_ / "cache/kernels/2222222222222222", Arch::kX86_64);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->boot_image, plain->image);
  EXPECT_EQ(plain->image.filename(), "bzImage");
}

// A kernel.json that cannot be read (damaged, a newer schema) is a cache miss with its reason.
TEST_F(BuilderTest, UnreadableKernelJsonIsACacheMissWithAReason) {
  std::vector<std::string> lines;
  KernelBuilder b(make_, {.data_root = tree_ / "project",
                          .spec_dir = tree_.path(),
                          .cache = tree_ / "cache",
                          .jobs = 2,
                          .use_ccache = false,
                          .log = [&](const std::string& line) { lines.push_back(line); }});
  auto first = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  tree_.put("cache/kernels/" + first->build_id + "/kernel.json", R"({"schema": 2, "kernel": "k"})");
  lines.clear();
  make_.calls.clear();
  auto again = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->cache_hit);
  // Built again, in the O= directory that the same Kconfig inputs configured.
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"bzImage"}));
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("the cached copy is not usable"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("schema 2 is newer than this foliolab reads (1)"), std::string::npos)
      << lines[0];
  tree_.put("cache/kernels/" + first->build_id + "/kernel.json", "{\"schema\": 1, \"kern");
  auto damaged = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(damaged.ok()) << damaged.error().message;
  EXPECT_FALSE(damaged->cache_hit);
}

TEST_F(BuilderTest, DroppedConfigOptionIsAnErrorNamingIt) {
  auto r = builder().build(spec("", {"numa-emu"}), Arch::kX86_64);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("CONFIG_NUMA_EMU=y (from numa-emu) ended up not set"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(std::count(make_.calls.begin(), make_.calls.end(), "bzImage"), 0);
}

TEST_F(BuilderTest, PatchThatDoesNotApplyNamesPatchAndHunkAndLeavesTheUsersTreeAlone) {
  auto r = builder().build(spec("bad"), Arch::kX86_64);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("patch 0001-bad.patch (1/1 in series bad)"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("mm/memory.c: hunk #1 FAILED"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(*read_file(tree_ / "src/mm/memory.c"), "one\ntwo\nthree\n");
}

TEST_F(BuilderTest, SwitchingSeriesRestoresWhatThePreviousSeriesChanged) {
  auto b = builder();
  ASSERT_TRUE(b.build(spec("a"), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\nTWO\nthree\n");
  ASSERT_TRUE(b.build(spec("b"), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\ntwo\nTHREE\n");  // a's change is gone
  ASSERT_TRUE(b.build(spec(""), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\ntwo\nthree\n");
  EXPECT_EQ(*read_file(tree_ / "src/mm/memory.c"), "one\ntwo\nthree\n");  // the source is untouched
}

TEST_F(BuilderTest, EditedDirectorySourceReusesItsWorkingTreeAndObjDirAndCopiesOnlyTheEdit) {
  auto b = builder();
  auto first = b.build(spec(""), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const fs::path objdir = make_.objdirs.back();
  EXPECT_EQ(objdir.parent_path(), tree());  // a direct subfolder: kbuild uses srctree=..
  const auto makefile_mtime = fs::last_write_time(tree() / "Makefile");
  tree_.put("src/mm/memory.c", "one\ntwo\nfour\n");
  auto second = b.build(spec(""), Arch::kX86_64);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second->cache_hit);
  EXPECT_NE(second->build_id, first->build_id);
  EXPECT_EQ(make_.objdirs.back(), objdir);
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\ntwo\nfour\n");
  EXPECT_EQ(fs::last_write_time(tree() / "Makefile"), makefile_mtime);  // not copied again
  size_t trees = 0;
  for (const auto& e : fs::directory_iterator(tree_ / "cache/work")) trees += e.is_directory();
  EXPECT_EQ(trees, 1u);
  // The key is content-based: the original content is the original kernel.
  tree_.put("src/mm/memory.c", "one\ntwo\nthree\n");
  auto third = b.build(spec(""), Arch::kX86_64);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->cache_hit);
  EXPECT_EQ(third->build_id, first->build_id);
  EXPECT_NE(third->source.find("directory " + (tree_ / "src").string()), std::string::npos)
      << third->source;
}

// A kernel whose tree differs from the one last built in its O= directory only outside the
// Kconfig inputs (a bisection step's .c patch) reuses that .config: no kconfig run. A changed
// Kconfig file, or a .config changed by hand since, configures again.
TEST_F(BuilderTest, OnlyAChangedKconfigInputOrConfigConfiguresTheObjDirAgain) {
  auto b = builder();
  auto first = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const fs::path objdir = make_.objdirs.back();
  make_.calls.clear();
  auto second = b.build(spec("b"), Arch::kX86_64);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second->cache_hit);
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"bzImage"}));
  EXPECT_EQ(*read_file(second->dotconfig), *read_file(first->dotconfig));

  tree_.put("src/mm/Kconfig", "config TRANSPARENT_HUGEPAGE\n\tbool\n");
  make_.calls.clear();
  auto kconfig_edited = b.build(spec("b"), Arch::kX86_64);
  ASSERT_TRUE(kconfig_edited.ok()) << kconfig_edited.error().message;
  EXPECT_EQ(make_.objdirs.back(), objdir);
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"tinyconfig", "olddefconfig", "bzImage"}));

  tree_.put("src/mm/memory.c", "one\ntwo\nfour\n");
  ASSERT_TRUE(
      write_file_atomic(objdir / ".config", "CONFIG_64BIT=y\nCONFIG_NUMA=y\nCONFIG_X=y\n").ok());
  make_.calls.clear();
  auto hand_edited = b.build(spec(""), Arch::kX86_64);
  ASSERT_TRUE(hand_edited.ok()) << hand_edited.error().message;
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"tinyconfig", "olddefconfig", "bzImage"}));
  EXPECT_EQ(read_file(hand_edited->dotconfig)->find("CONFIG_X=y"), std::string::npos);
}

TEST_F(BuilderTest, DirectorySourceHoldingBuildOutputsIsRefusedWithHowToCleanIt) {
  tree_.put("src/.config", "CONFIG_64BIT=y\n");
  tree_.put("src/mm/memory.o", "obj");
  auto r = builder().build(spec(""), Arch::kX86_64);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("holds in-tree build outputs (.config, mm/memory.o)"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("mrproper"), std::string::npos);
  EXPECT_TRUE(make_.calls.empty());
}

}  // namespace
}  // namespace foliolab
