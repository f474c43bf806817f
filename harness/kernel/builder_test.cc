// The build pipeline against a fake kernel tree and a fake `make` (tuxmake's trick): caching,
// config verification, patch failures and switching series, in milliseconds. Real patch and cp
// run; only make and the compiler are faked.
#include "kernel/builder.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "kernel/obj_dir_mark.h"
#include "testing/fake_kernel_tree.h"
#include "testing/fake_make.h"
#include "testing/source_root.h"
#include "util/fs.h"
#include "util/fs_ops.h"

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
  // Its log lines go to `lines` when given.
  KernelBuilder builder(std::vector<std::string>* lines = nullptr) {
    KernelBuildOptions opt{.data_root = tree_ / "project",
                           .spec_dir = tree_.path(),
                           .cache = tree_ / "cache",
                           .jobs = 2,
                           .use_ccache = false};
    if (lines) opt.log = [lines](const std::string& l) { lines->push_back(l); };
    return KernelBuilder(make_, opt);
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

// A config not built before starts from the O= directory of the nearest one built (a one-option
// A/B rebuilds what the option reaches); one far from every built config starts empty.
TEST_F(BuilderTest, ANewConfigStartsFromTheNearestBuiltObjDirAndAFarOneFromNothing) {
  tree_.put("project/kernel-config/thp-always.config", "CONFIG_THP_ALWAYS=y\n");
  std::string far;
  for (int i = 0; i < 60; ++i) far += fmt::format("CONFIG_FAR_{}=y\n", i);
  tree_.put("project/kernel-config/far.config", far);
  std::vector<std::string> lines;
  KernelBuilder b = builder(&lines);
  auto obj_dirs = [&] {  // a directory source's O= folders are in its working tree
    std::set<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(tree())) {
      if (e.is_directory() && e.path().filename().string().starts_with(".foliolab-o-"))
        dirs.insert(e.path());
    }
    return dirs;
  };
  ASSERT_TRUE(b.build(spec("a"), Arch::kX86_64).ok());
  const std::set<fs::path> before = obj_dirs();
  ASSERT_EQ(before.size(), 1u);
  const fs::path first = *before.begin();
  ASSERT_TRUE(write_file_atomic(first / "mm/memory.o", "built for the first config").ok());
  // objtool's commands name their absolute output path; kbuild's own are relative to O=.
  const fs::path objtool_cmd = "tools/objtool/.check.o.cmd";
  ASSERT_TRUE(write_file_atomic(first / objtool_cmd,
                                "cmd_" + (first / "tools/objtool/check.o").string() + " := gcc\n")
                  .ok());
  const auto objtool_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(first / objtool_cmd, objtool_time);

  auto second = b.build(spec("a", {"thp-always"}), Arch::kX86_64);
  ASSERT_TRUE(second.ok()) << second.error().message;
  fs::path seeded;
  for (const auto& d : obj_dirs()) {
    if (!before.count(d)) seeded = d;
  }
  ASSERT_FALSE(seeded.empty());
  EXPECT_EQ(*read_file(seeded / "mm/memory.o"), "built for the first config");
  EXPECT_EQ(*read_file(seeded / objtool_cmd),
            "cmd_" + (seeded / "tools/objtool/check.o").string() + " := gcc\n");
  EXPECT_EQ(fs::last_write_time(seeded / objtool_cmd), objtool_time);
  // Its own .config (configured before the copy, put back after it), not the sibling's.
  EXPECT_NE(read_file(seeded / ".config")->find("CONFIG_THP_ALWAYS=y"), std::string::npos);
  EXPECT_EQ(read_file(first / ".config")->find("CONFIG_THP_ALWAYS=y"), std::string::npos);
  EXPECT_NE(*read_file(seeded / ".foliolab-configured"),
            *read_file(first / ".foliolab-configured"));
  const std::string said = fmt::format("kernel k (x86_64): {} seeded from {} (1 option(s) apart)",
                                       seeded.filename().string(), first.filename().string());
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.starts_with(said);
  })) << said;
  // Built again with nothing changed: the kept .config, no new copy.
  make_.calls.clear();
  ASSERT_TRUE(write_file_atomic(first / "mm/memory.o", "changed since").ok());
  tree_.put("project/patches/a/0001-a.patch",
            "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
  ASSERT_TRUE(b.build(spec("a", {"thp-always"}), Arch::kX86_64).ok());
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"bzImage"}));
  EXPECT_EQ(*read_file(seeded / "mm/memory.o"), "built for the first config");

  const std::set<fs::path> two = obj_dirs();
  ASSERT_TRUE(b.build(spec("a", {"far"}), Arch::kX86_64).ok());
  fs::path fresh;
  for (const auto& d : obj_dirs()) {
    if (!two.count(d)) fresh = d;
  }
  ASSERT_FALSE(fresh.empty());
  EXPECT_FALSE(path_exists(fresh / "mm/memory.o"));
}

// A build killed mid-make (Ctrl-C, a timeout, a restart) leaves a truncated .cmd file; the next
// build in that O= directory removes what the killed one wrote and keeps the rest (the .config it
// did not write, so no reconfiguring), and an interrupted sibling seeds nothing.
TEST_F(BuilderTest, ABuildKilledMidMakeLeavesNothingHalfWrittenForTheNext) {
  std::vector<std::string> lines;
  KernelBuilder b = builder(&lines);
  auto first = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const fs::path obj = make_.objdirs.back();
  ASSERT_TRUE(write_file_atomic(obj / "mm/memory.o", "whole, from the first build").ok());
  const auto before = fs::file_time_type::clock::now() - std::chrono::seconds(5);
  fs::last_write_time(obj / "mm/memory.o", before);
  fs::last_write_time(obj / ".config", before);

  tree_.put("project/patches/a/0001-a.patch",
            "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
  make_.killed_target = "bzImage";
  auto killed = b.build(spec("a"), Arch::kX86_64);
  ASSERT_FALSE(killed.ok());
  EXPECT_NE(killed.error().message.find("killed by signal 9"), std::string::npos)
      << killed.error().message;
  EXPECT_TRUE(path_exists(obj / kBuildingMark));
  EXPECT_TRUE(path_exists(obj / "kernel/time/.tick-sched.o.cmd"));

  // Its sibling-to-be is not seeded from it.
  tree_.put("project/kernel-config/thp-always.config", "CONFIG_THP_ALWAYS=y\n");
  make_.killed_target.clear();
  lines.clear();
  ASSERT_TRUE(b.build(spec("a", {"thp-always"}), Arch::kX86_64).ok());
  EXPECT_FALSE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("seeded from") != std::string::npos;
  }));

  make_.calls.clear();
  lines.clear();
  auto again = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(make_.calls, (std::vector<std::string>{"bzImage"}));
  EXPECT_FALSE(path_exists(obj / "kernel/time/.tick-sched.o.cmd"));
  EXPECT_FALSE(path_exists(obj / kBuildingMark));
  EXPECT_EQ(*read_file(obj / "mm/memory.o"), "whole, from the first build");
  const std::string said = fmt::format(
      "kernel k (x86_64): the last build in {} was interrupted; removed the 1 file(s) it was "
      "writing",
      obj.string());
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.starts_with(said);
  })) << said;
}

// `plan` estimates a kernel to build from the past builds of its kind: kernel.json tells a full
// guest kernel's (built with guest-full) from a small one's.
TEST_F(BuilderTest, PastBuildsSayWhichWereFullGuestKernels) {
  tree_.put("project/kernel-config/guest-full.config", "CONFIG_SWAP=y\n");
  tree_.put("project/kernel-config/x86_64-full.config", "CONFIG_ACPI=y\n");
  auto b = builder();
  KernelSpec full = spec("a");
  full.full_guest = {Arch::kX86_64};
  auto small_build = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(small_build.ok()) << small_build.error().message;
  auto full_build = b.build(full, Arch::kX86_64);
  ASSERT_TRUE(full_build.ok()) << full_build.error().message;
  ASSERT_NE(small_build->build_id, full_build->build_id);
  const std::vector<PastKernelBuild> past = past_kernel_builds(tree_ / "cache");
  ASSERT_EQ(past.size(), 2u);
  int full_ones = 0;
  for (const PastKernelBuild& p : past) {
    EXPECT_EQ(p.arch, "x86_64");
    EXPECT_GT(p.build_seconds, 0);
    full_ones += p.full_guest ? 1 : 0;
  }
  EXPECT_EQ(full_ones, 1);
}

// `evidence:` (model/evidence.h) adds kernel-config/tracing.config after the arch's fragments:
// a kernel without it keeps its build id; with it the id is that of the same kernel naming the
// fragment itself first in `config:` (what a kernel built before the key existed asked for).
TEST_F(BuilderTest, TracingFragmentChangesTheBuildIdOnlyWhenAsked) {
  tree_.put("project/kernel-config/tracing.config",
            *read_file(kSourceRoot / "kernel-config/tracing.config"));
  auto b = builder();
  auto plain = b.lookup(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  KernelSpec traced = spec("a");
  traced.tracing = true;
  auto with = b.lookup(traced, Arch::kX86_64);
  ASSERT_TRUE(with.ok()) << with.error().message;
  EXPECT_NE(with->build_id, plain->build_id);
  auto named = b.lookup(spec("a", {"tracing"}), Arch::kX86_64);
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->build_id, with->build_id);
  KernelSpec off = spec("a");
  off.tracing = false;
  EXPECT_EQ(b.lookup(off, Arch::kX86_64)->build_id, plain->build_id);
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
  KernelBuilder b = builder(&lines);
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

namespace foliolab {
namespace {

// A lab's shared kernels (KernelBuildOptions::fetch/share): a kernel another host built is
// fetched before anything is unpacked or made; each kernel a build uses is offered to share.
TEST_F(BuilderTest, LabKernelIsFetchedInsteadOfBuiltAndEachUsedOneShared) {
  auto first = builder().build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const fs::path lab = tree_ / "lab";
  fs::create_directories(lab);
  fs::copy(first->dir, lab / first->build_id);
  fs::remove_all(tree_ / "cache");
  make_.calls.clear();
  std::vector<std::string> shared, asked;
  KernelBuildOptions opt{.data_root = tree_ / "project",
                         .spec_dir = tree_.path(),
                         .cache = tree_ / "cache",
                         .use_ccache = false,
                         .log = [](const std::string&) {},
                         .fetch = [&](const std::string& id, const fs::path& dir) -> Result<bool> {
                           asked.push_back(id);
                           if (!fs::exists(lab / id)) return false;
                           fs::create_directories(dir.parent_path());
                           fs::copy(lab / id, dir);
                           return true;
                         },
                         .share = [&](const std::string& id, const fs::path&) -> Result<void> {
                           shared.push_back(id);
                           return {};
                         }};
  KernelBuilder b(make_, opt);
  auto fetched = b.build(spec("a"), Arch::kX86_64);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message;
  EXPECT_TRUE(make_.calls.empty());
  EXPECT_EQ(fetched->build_id, first->build_id);
  EXPECT_EQ(*read_file(fetched->image), "kernel");
  // One the lab lacks is built here, then shared.
  auto built = b.build(spec("b"), Arch::kX86_64);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_FALSE(make_.calls.empty());
  EXPECT_EQ(asked, (std::vector<std::string>{first->build_id, built->build_id}));
  EXPECT_EQ(shared, (std::vector<std::string>{first->build_id, built->build_id}));
}

}  // namespace
}  // namespace foliolab
