#include "kernel/series.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/fake_kernel_tree.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

const char* kPatch =
    "From 1 Mon Sep 17 00:00:00 2001\n"
    "Subject: [PATCH] demo\n"
    "---\n"
    "diff --git a/mm/a.c b/mm/a.c\n"
    "--- a/mm/a.c\n"
    "+++ b/mm/a.c\n"
    "@@ -1,3 +1,3 @@\n"
    " one\n"
    "-two\n"
    "+TWO\n"
    " three\n"
    "@@ -7,3 +7,3 @@\n"
    " seven\n"
    "-eight\n"
    "+EIGHT\n"
    " nine\n"
    "diff --git a/mm/new.c b/mm/new.c\n"
    "--- /dev/null\n"
    "+++ b/mm/new.c\n"
    "@@ -0,0 +1 @@\n"
    "+new\n";

class SeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tree_ / "tree/mm");
    fs::create_directories(tree_ / "series-dir");
  }
  FakeKernelTree tree_{"foliolab-series"};
};

TEST_F(SeriesTest, FilesTouchedIncludesCreatedFiles) {
  EXPECT_EQ(files_touched(kPatch), (std::vector<std::string>{"mm/a.c", "mm/new.c"}));
}

TEST_F(SeriesTest, ExtractsTheRequestedHunk) {
  std::string h = extract_hunk(kPatch, "mm/a.c", 2);
  EXPECT_EQ(h, "@@ -7,3 +7,3 @@\n seven\n-eight\n+EIGHT\n nine\n");
  EXPECT_EQ(extract_hunk(kPatch, "mm/a.c", 3), "");
}

TEST_F(SeriesTest, ParsesGnuPatchOutput) {
  auto f = parse_patch_output(
      "checking file mm/a.c\nHunk #2 FAILED at 7.\n1 out of 2 hunks FAILED\n"
      "can't find file to patch at input line 20\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].file, "mm/a.c");
  EXPECT_EQ(f[0].hunk, 2);
  EXPECT_EQ(f[0].line, 7);
  EXPECT_EQ(f[1].what, "missing file");
}

TEST_F(SeriesTest, LoadRejectsMissingPatchWithLocation) {
  tree_.put("series-dir/series", "# demo\n0001-a.patch\n0002-missing.patch\n");
  tree_.put("series-dir/0001-a.patch", kPatch);
  auto s = load_series(tree_ / "series-dir");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("series:3: 0002-missing.patch is listed but cannot be read"),
            std::string::npos)
      << s.error().message;
}

TEST_F(SeriesTest, AppliesWithRealPatchAndReportsFailingHunk) {
  tree_.put("series-dir/series", "0001-a.patch\n");
  tree_.put("series-dir/0001-a.patch", kPatch);
  tree_.put("tree/mm/a.c", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n");
  auto s = load_series(tree_ / "series-dir");
  ASSERT_TRUE(s.ok()) << s.error().message;
  RealProcessRunner runner;
  ASSERT_TRUE(apply_series(runner, tree_ / "tree", *s, "demo tree").ok());
  EXPECT_EQ(*read_file(tree_ / "tree/mm/a.c"),
            "one\nTWO\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n");
  EXPECT_EQ(*read_file(tree_ / "tree/mm/new.c"), "new\n");

  // Second hunk no longer matches: the error names patch, file, hunk and shows the hunk.
  tree_.put("tree/mm/a.c", "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\nDIFFERENT\nNINE\n");
  fs::remove(tree_ / "tree/mm/new.c");
  auto st = apply_series(runner, tree_ / "tree", *s, "demo tree");
  ASSERT_FALSE(st.ok());
  const std::string& msg = st.error().message;
  EXPECT_NE(msg.find("patch 0001-a.patch (1/1 in series series-dir) does not apply to demo tree"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("mm/a.c: hunk #2 FAILED"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-eight\n+EIGHT"), std::string::npos) << msg;
  // --dry-run first: the tree is untouched by the failed patch.
  EXPECT_EQ(*read_file(tree_ / "tree/mm/a.c"),
            "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\nDIFFERENT\nNINE\n");
}

}  // namespace
}  // namespace foliolab
