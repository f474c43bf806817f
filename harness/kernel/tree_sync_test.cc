// Scanning and syncing against a small fake tree in a temp dir: edits, deletions, additions,
// renames, mode changes and symlinks propagate; unchanged files keep their inode and mtime (so
// make leaves them alone); digests are reused when stat data did not change.
#include "kernel/tree_sync.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "testing/fake_kernel_tree.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class TreeSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.put("user/Makefile", "VERSION = 6\n");
    tree_.put("user/mm/memory.c", "memory\n");
    tree_.put("user/mm/huge_memory.c", "huge\n");
    tree_.put("user/scripts/gen.sh", "#!/bin/sh\n");
    fs::permissions(user() / "scripts/gen.sh", fs::perms::owner_exec, fs::perm_options::add);
    tree_.put("user/.git/HEAD", "ref: refs/heads/main\n");
    fs::create_symlink("memory.c", user() / "mm/link.c");
  }
  fs::path user() const { return tree_ / "user"; }
  fs::path work() const { return tree_ / "work"; }

  // One build's worth: scan both sides (with remembered indexes) and sync.
  SyncStats sync() {
    auto src = scan_tree(user(), src_index_);
    EXPECT_TRUE(src.ok()) << src.error().message;
    src_index_ = src->index;
    fs::create_directories(work());
    auto dst = scan_tree(work(), {});
    EXPECT_TRUE(dst.ok());
    auto stats = sync_tree(user(), src->index, work(), dst->index);
    EXPECT_TRUE(stats.ok()) << stats.error().message;
    return *stats;
  }
  std::string fingerprint(const fs::path& dir) {
    auto s = scan_tree(dir, {});
    EXPECT_TRUE(s.ok());
    return tree_fingerprint(s->index);
  }
  static ino_t inode(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0);
    return st.st_ino;
  }

  FakeKernelTree tree_{"foliolab-treesync"};
  TreeIndex src_index_;
};

TEST_F(TreeSyncTest, FirstSyncCopiesEverythingButGitAndMirrorsTheTree) {
  SyncStats s = sync();
  EXPECT_EQ(s.copied, 5u);
  EXPECT_EQ(*read_file(work() / "mm/memory.c"), "memory\n");
  EXPECT_FALSE(fs::exists(work() / ".git"));
  EXPECT_TRUE(fs::is_symlink(work() / "mm/link.c"));
  EXPECT_EQ(fs::read_symlink(work() / "mm/link.c"), "memory.c");
  EXPECT_NE(fs::status(work() / "scripts/gen.sh").permissions() & fs::perms::owner_exec,
            fs::perms::none);
  EXPECT_NE(inode(work() / "mm/memory.c"), inode(user() / "mm/memory.c"));  // a copy, not a link
  EXPECT_EQ(fingerprint(work()), fingerprint(user()));
}

TEST_F(TreeSyncTest, EditsDeletionsAdditionsRenamesModesAndSymlinksPropagateAndNothingElseMoves) {
  sync();
  const ino_t kept = inode(work() / "Makefile");
  const auto kept_mtime = fs::last_write_time(work() / "Makefile");
  tree_.put("user/mm/huge_memory.c", "huge, edited\n");         // edit
  fs::remove(user() / "Makefile");                              // delete...
  tree_.put("user/Makefile", "VERSION = 6\n");                  // ...and recreate identically
  fs::rename(user() / "mm/memory.c", user() / "mm/memory2.c");  // rename
  tree_.put("user/mm/new/added.c", "added\n");                  // addition in a new folder
  fs::permissions(user() / "scripts/gen.sh", fs::perms::owner_exec,
                  fs::perm_options::remove);  // mode
  fs::remove(user() / "mm/link.c");
  fs::create_symlink("huge_memory.c", user() / "mm/link.c");  // retargeted symlink
  SyncStats s = sync();
  EXPECT_EQ(*read_file(work() / "mm/huge_memory.c"), "huge, edited\n");
  EXPECT_FALSE(fs::exists(work() / "mm/memory.c"));
  EXPECT_EQ(*read_file(work() / "mm/memory2.c"), "memory\n");
  EXPECT_EQ(*read_file(work() / "mm/new/added.c"), "added\n");
  EXPECT_EQ(fs::status(work() / "scripts/gen.sh").permissions() & fs::perms::owner_exec,
            fs::perms::none);
  EXPECT_EQ(fs::read_symlink(work() / "mm/link.c"), "huge_memory.c");
  // Same content: not copied again, so make sees nothing new.
  EXPECT_EQ(inode(work() / "Makefile"), kept);
  EXPECT_EQ(fs::last_write_time(work() / "Makefile"), kept_mtime);
  EXPECT_EQ(s.removed, 1u);       // memory.c
  EXPECT_EQ(s.copied, 4u);        // huge_memory.c, memory2.c, added.c, link.c
  EXPECT_EQ(s.mode_changed, 1u);  // gen.sh
  EXPECT_EQ(fingerprint(work()), fingerprint(user()));
  // Removing the only file of a folder removes the folder.
  fs::remove_all(user() / "mm/new");
  sync();
  EXPECT_FALSE(fs::exists(work() / "mm/new"));
  EXPECT_EQ(fingerprint(work()), fingerprint(user()));
}

TEST_F(TreeSyncTest, BuildFoldersInTheWorkingTreeSurviveASync) {
  sync();
  tree_.put(std::string("work/") + kBuildDirPrefix + "x86_64-abc/mm/memory.o", "obj");
  fs::remove(user() / "mm/huge_memory.c");
  sync();
  EXPECT_TRUE(fs::exists(work() / (std::string(kBuildDirPrefix) + "x86_64-abc/mm/memory.o")));
  EXPECT_FALSE(fs::exists(work() / "mm/huge_memory.c"));
}

TEST_F(TreeSyncTest, ScanReusesDigestsWhenStatDataIsUnchangedAndStoresThem) {
  auto first = scan_tree(user(), {});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->hashed, 5u);
  ASSERT_TRUE(save_tree_index(tree_ / "index", first->index).ok());
  TreeIndex loaded = load_tree_index(tree_ / "index");
  ASSERT_EQ(loaded.size(), first->index.size());
  EXPECT_EQ(tree_fingerprint(loaded), tree_fingerprint(first->index));
  EXPECT_TRUE(loaded.at("scripts/gen.sh").exec);
  EXPECT_TRUE(loaded.at("mm/link.c").symlink);
  auto again = scan_tree(user(), loaded);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->hashed, 0u);
  tree_.put("user/mm/memory.c", "memory, edited\n");
  auto edited = scan_tree(user(), again->index);
  ASSERT_TRUE(edited.ok());
  EXPECT_EQ(edited->hashed, 1u);
  EXPECT_NE(tree_fingerprint(edited->index), tree_fingerprint(again->index));
  // Stale digests are never trusted: a reused index entry with other stat data is re-hashed.
  TreeIndex lying = edited->index;
  lying.at("mm/huge_memory.c").digest = std::string(64, '0');
  lying.at("mm/huge_memory.c").mtime_ns += 1;
  auto honest = scan_tree(user(), lying);
  ASSERT_TRUE(honest.ok());
  EXPECT_EQ(tree_fingerprint(honest->index), tree_fingerprint(edited->index));
}

TEST_F(TreeSyncTest, InTreeBuildOutputsAreFoundAndDescribedWithHowToClean) {
  tree_.put("user/.config", "CONFIG_64BIT=y\n");
  tree_.put("user/mm/memory.o", "obj");
  tree_.put("user/include/generated/autoconf.h", "#define X 1\n");
  tree_.put("user/mm/.memory.o.cmd", "cmd");
  auto scan = scan_tree(user(), {});
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->build_outputs,
            (std::vector<std::string>{".config", "include/generated/autoconf.h", "mm/.memory.o.cmd",
                                      "mm/memory.o"}));
  const std::string msg = describe_build_outputs(user(), scan->build_outputs);
  EXPECT_NE(msg.find("holds in-tree build outputs (.config, include/generated/autoconf.h"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("make -C " + user().string() + " mrproper"), std::string::npos) << msg;
  EXPECT_FALSE(is_build_output("mm/memory.c"));
  EXPECT_FALSE(is_build_output("include/linux/config.h"));
  EXPECT_TRUE(is_build_output("arch/x86/include/generated/asm/cpufeaturemasks.h"));
}

}  // namespace
}  // namespace foliolab
