// Git sources against a small real repository made by the test (real git; only make and the
// compiler are faked): refs resolve to commits, errors name the ref, two refs share one working
// tree and a switch rewrites only the files that differ, commit ranges apply as patches in order.
#include "kernel/git.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "kernel/builder.h"
#include "kernel/source.h"
#include "testing/fake_kernel_tree.h"
#include "testing/fake_make.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class GitSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    git({"init", "-q", "-b", "main"});
    tree_.linux_source("repo", 0, "one\ntwo\nthree\n");
    tree_.put("repo/mm/huge_memory.c", "huge\n");
    commit("base");
    git({"tag", "v1"});
    tree_.put("repo/mm/huge_memory.c", "huge, tuned\n");
    commit("tune huge_memory");
    tree_.put("repo/mm/new.c", "new\n");
    commit("add new.c");
    git({"branch", "topic"});
    tree_.base_config();
  }
  std::string git(std::vector<std::string> args) {
    std::vector<std::string> argv = {"git",
                                     "-C",
                                     (tree_ / "repo").string(),
                                     "-c",
                                     "user.name=t",
                                     "-c",
                                     "user.email=t@example.org",
                                     "-c",
                                     "commit.gpgsign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    fs::create_directories(tree_ / "repo");
    ProcessResult r = real_.run({.argv = argv, .capture = true});
    EXPECT_TRUE(r.ok()) << format_argv(argv) << ": " << r.output;
    while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return r.output;
  }
  void commit(const std::string& msg) {
    git({"add", "-A"});
    git({"commit", "-q", "-m", msg});
  }
  KernelSpec spec(const std::string& ref) {
    KernelSpec k;
    k.name = "k";
    k.source = (tree_ / "repo").string();
    k.source_git = true;
    k.source_ref = ref;
    return k;
  }
  KernelBuilder builder() {
    return KernelBuilder(make_, {.data_root = tree_ / "project",
                                 .spec_dir = tree_.path(),
                                 .cache = tree_ / "cache",
                                 .jobs = 2,
                                 .use_ccache = false});
  }
  fs::path tree() {
    for (const auto& e : fs::directory_iterator(tree_ / "cache/work")) {
      if (e.is_directory()) return e.path() / "tree";
    }
    return {};
  }
  static ino_t inode(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_ino;
  }

  FakeKernelTree tree_{"foliolab-git"};
  RealProcessRunner real_;
  FakeMake make_;
};

TEST_F(GitSourceTest, UnknownRefIsAnErrorNamingTheRefAndTheRepository) {
  GitRepo repo(real_, tree_ / "repo");
  auto c = repo.commit_of("v1");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(*c, git({"rev-parse", "v1"}));
  auto bad = repo.commit_of("no-such-branch");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown ref 'no-such-branch'"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find((tree_ / "repo").string()), std::string::npos);
  auto built = builder().build(spec("no-such-branch"), Arch::kX86_64);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.error().message.find("unknown ref 'no-such-branch'"), std::string::npos)
      << built.error().message;
}

TEST_F(GitSourceTest, TwoRefsShareOneWorkingTreeAndASwitchRewritesOnlyWhatDiffers) {
  auto b = builder();
  auto first = b.build(spec("v1"), Arch::kX86_64);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*read_file(tree() / "mm/huge_memory.c"), "huge\n");
  EXPECT_FALSE(fs::exists(tree() / "mm/new.c"));
  const std::string v1 = git({"rev-parse", "v1"});
  EXPECT_NE(first->source.find("@ " + v1.substr(0, 12) + " (ref v1)"), std::string::npos)
      << first->source;
  const ino_t memory = inode(tree() / "mm/memory.c");
  const fs::path objdir = make_.objdirs.back();
  auto second = b.build(spec("topic"), Arch::kX86_64);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_NE(second->build_id, first->build_id);
  EXPECT_EQ(*read_file(tree() / "mm/huge_memory.c"), "huge, tuned\n");
  EXPECT_EQ(*read_file(tree() / "mm/new.c"), "new\n");
  EXPECT_EQ(inode(tree() / "mm/memory.c"), memory);  // unchanged between the refs: untouched
  EXPECT_EQ(make_.objdirs.back(), objdir);           // the same O= folder: an incremental build
  // Back to v1: the added file goes away; the cached kernel is a hit.
  auto again = b.build(spec("v1"), Arch::kX86_64);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->build_id, first->build_id);
  // Only one working tree for the repository.
  size_t trees = 0;
  for (const auto& e : fs::directory_iterator(tree_ / "cache/work")) trees += e.is_directory();
  EXPECT_EQ(trees, 1u);
}

TEST_F(GitSourceTest,
       UncommittedChangesWithARefAreAnErrorAndWithoutOneTheCheckoutIsBuiltAndMarkedDirty) {
  tree_.put("repo/mm/memory.c", "one\ntwo\nthree, uncommitted\n");
  auto with_ref = builder().build(spec("v1"), Arch::kX86_64);
  ASSERT_FALSE(with_ref.ok());
  EXPECT_NE(with_ref.error().message.find("uncommitted changes, but ref 'v1' was asked for"),
            std::string::npos)
      << with_ref.error().message;
  auto worktree = builder().build(spec(""), Arch::kX86_64);
  ASSERT_TRUE(worktree.ok()) << worktree.error().message;
  EXPECT_NE(worktree->source.find("dirty"), std::string::npos) << worktree->source;
  EXPECT_NE(worktree->source.find(git({"rev-parse", "HEAD"}).substr(0, 12)), std::string::npos)
      << worktree->source;
  EXPECT_EQ(*read_file(tree() / "mm/memory.c"), "one\ntwo\nthree, uncommitted\n");
}

TEST_F(GitSourceTest, CommitRangeAppliesItsCommitsInOrderOnTopOfTheBase) {
  KernelSpec k = spec("v1");
  k.patches_range = "v1..topic";
  auto built = builder().build(k, Arch::kX86_64);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(*read_file(tree() / "mm/huge_memory.c"), "huge, tuned\n");
  EXPECT_EQ(*read_file(tree() / "mm/new.c"), "new\n");
  EXPECT_NE(built->source.find("patches v1..topic"), std::string::npos) << built->source;
  // Same content as building `topic` directly, but a different recipe: a different kernel.
  auto direct = builder().build(spec("topic"), Arch::kX86_64);
  ASSERT_TRUE(direct.ok());
  EXPECT_NE(direct->build_id, built->build_id);
  // Switching back to the plain base restores what the range touched.
  ASSERT_TRUE(builder().build(spec("v1"), Arch::kX86_64).ok());
  EXPECT_EQ(*read_file(tree() / "mm/huge_memory.c"), "huge\n");
  EXPECT_FALSE(fs::exists(tree() / "mm/new.c"));
}

TEST_F(GitSourceTest, RangeErrorsNameTheRange) {
  GitRepo repo(real_, tree_ / "repo");
  git({"checkout", "-q", "-b", "side", "v1"});
  tree_.put("repo/mm/side.c", "side\n");
  commit("side work");
  git({"checkout", "-q", "main"});
  auto unrelated = repo.commit_range("topic..side", tree_ / "ranges");
  ASSERT_FALSE(unrelated.ok());
  EXPECT_NE(unrelated.error().message.find("commit range topic..side"), std::string::npos)
      << unrelated.error().message;
  EXPECT_NE(unrelated.error().message.find("'side'"), std::string::npos);
  EXPECT_NE(unrelated.error().message.find("does not descend from 'topic'"), std::string::npos);
  auto unknown = repo.commit_range("v1..nope", tree_ / "ranges");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("commit range v1..nope"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("unknown ref 'nope'"), std::string::npos)
      << unknown.error().message;
  auto empty = repo.commit_range("topic..topic", tree_ / "ranges");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("holds no commits"), std::string::npos)
      << empty.error().message;
  auto ok = repo.commit_range("v1..topic", tree_ / "ranges");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->patches.size(), 2u);
  EXPECT_NE(ok->patches[0].name.find("tune-huge_memory"), std::string::npos) << ok->patches[0].name;
  EXPECT_NE(ok->patches[1].name.find("add-new.c"), std::string::npos) << ok->patches[1].name;
}

TEST_F(GitSourceTest, CommitsOfARangeAreTheBaseThenEachCommitOldestFirst) {
  GitRepo repo(real_, tree_ / "repo");
  const std::string base = git({"rev-parse", "v1"}), tip = git({"rev-parse", "topic"});
  const std::string middle = git({"rev-parse", "topic~1"});
  auto ids = repo.commits("v1..topic");
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  EXPECT_EQ(*ids, (std::vector<std::string>{base, middle, tip}));
  auto empty = repo.commits("topic..topic");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("holds no commits"), std::string::npos);
  auto malformed = repo.commits("v1");
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().message.find("expected BASE..TIP"), std::string::npos);
}

TEST_F(GitSourceTest, ChangedPathsListsContentAndModeChangesBetweenCommits) {
  GitRepo repo(real_, tree_ / "repo");
  auto changed = repo.changed_paths(git({"rev-parse", "v1"}), git({"rev-parse", "topic"}));
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(*changed, (std::vector<std::string>{"mm/huge_memory.c", "mm/new.c"}));
  fs::permissions(tree_ / "repo/mm/memory.c", fs::perms::owner_exec, fs::perm_options::add);
  commit("mode");
  auto mode = repo.changed_paths(git({"rev-parse", "topic"}), git({"rev-parse", "HEAD"}));
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(*mode, (std::vector<std::string>{"mm/memory.c"}));
}

}  // namespace
}  // namespace foliolab
