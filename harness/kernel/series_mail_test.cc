// The three forms of a series made by real git: `git format-patch` files in a folder, the same
// commits as an mbox (git format-patch --stdout, concatenated as b4 writes it) and as a quilt
// folder of plain diffs; the same patches are the same kernel (build id), and every malformed
// form is an error naming its file.
#include <gtest/gtest.h>

#include "kernel/builder.h"
#include "kernel/kernel_meta.h"
#include "kernel/series_mail.h"
#include "testing/fake_kernel_tree.h"
#include "testing/fake_make.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class SeriesFormsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.linux_source("src", 117, "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
    tree_.base_config();
    // The developer's repository: the base, then two commits.
    git({"init", "-q", "-b", "main"});
    git({"config", "user.email", "dev@example.org"});
    git({"config", "user.name", "A Developer"});
    tree_.put("repo/mm/memory.c", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
    git({"add", "."});
    git({"commit", "-qm", "base"});
    tree_.put("repo/mm/memory.c", "one\nTWO\nthree\nfour\nfive\nsix\nseven\n");
    git({"commit", "-qam", "mm: shout two\n\nA body line.\n--- not a diff"});
    tree_.put("repo/mm/memory.c", "one\nTWO\nthree\nfour\nfive\nsix\nSEVEN\n");
    tree_.put("repo/mm/new.c", "new\n");
    git({"add", "."});
    git({"commit", "-qm", "mm: shout seven, add new.c"});
  }

  std::string git(std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", (tree_ / "repo").string()});
    fs::create_directories(tree_ / "repo");
    ProcessResult r = real_.run({.argv = args, .capture = true});
    EXPECT_TRUE(r.ok()) << format_argv(args) << ": " << r.output;
    return r.output;
  }
  fs::path patches() { return tree_ / "project/patches"; }
  // The forms: format-patch files (with a cover letter), an mbox, a quilt folder of plain diffs.
  void write_format_patch(const std::string& name, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "format-patch", "-q", "--cover-letter", "-o", (patches() / name).string(), "HEAD~2"};
    args.insert(args.end(), extra.begin(), extra.end());
    git(args);
  }
  void write_mbox(const std::string& name, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"format-patch", "--stdout", "--cover-letter", "-v2"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("HEAD~2");
    tree_.put("project/patches/" + name, git(args));
  }
  void write_quilt(const std::string& name) {
    tree_.put("project/patches/" + name + "/shout-two.diff", git({"diff", "HEAD~2", "HEAD~1"}));
    tree_.put("project/patches/" + name + "/shout-seven.diff", git({"diff", "HEAD~1", "HEAD"}));
    tree_.put("project/patches/" + name + "/series", "shout-two.diff\nshout-seven.diff\n");
  }
  KernelBuilder builder() {
    return KernelBuilder(make_, {.data_root = tree_ / "project",
                                 .spec_dir = tree_.path(),
                                 .cache = tree_ / "cache",
                                 .jobs = 2,
                                 .use_ccache = false});
  }
  KernelSpec spec(const std::string& patches) {
    return KernelSpec{.name = "k", .source = (tree_ / "src").string(), .patches = patches};
  }
  std::string build_id(const std::string& patches) {
    auto found = builder().lookup(spec(patches), Arch::kX86_64);
    EXPECT_TRUE(found.ok()) << patches << ": " << found.error().message;
    return found.ok() ? found->build_id : "";
  }
  Result<Series> load(const std::string& name) {
    return load_patch_series(real_, patches() / name, tree_ / "scratch");
  }
  FakeKernelTree tree_{"foliolab-series-forms"};
  FakeMake make_;
  RealProcessRunner real_;
};

TEST_F(SeriesFormsTest, TheSamePatchesInAnyFormAreTheSameKernel) {
  write_format_patch("fp");
  write_mbox("v2-series.mbx");
  write_quilt("quilt");
  const std::string quilt = build_id("quilt");
  EXPECT_EQ(quilt.size(), 16u);
  EXPECT_EQ(build_id("fp"), quilt);
  EXPECT_EQ(build_id("v2-series.mbx"), quilt);
  // Not a constant: other patches, or the same ones in another order, are another kernel.
  tree_.put("project/patches/first/series", "shout-two.diff\n");
  tree_.put("project/patches/first/shout-two.diff", git({"diff", "HEAD~2", "HEAD~1"}));
  EXPECT_NE(build_id("first"), quilt);
  tree_.put("project/patches/quilt/series", "shout-seven.diff\nshout-two.diff\n");
  EXPECT_NE(build_id("quilt"), quilt);
  EXPECT_NE(build_id(""), quilt);
}

TEST_F(SeriesFormsTest, AnMboxBuildsOnceAndTheFormatPatchFolderHitsItsCache) {
  write_mbox("v2-series.mbx");
  write_format_patch("fp");
  auto b = builder();
  auto built = b.build(spec("v2-series.mbx"), Arch::kX86_64);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_FALSE(built->cache_hit);
  for (const auto& e : fs::directory_iterator(tree_ / "cache/work")) {
    if (!e.is_directory()) continue;
    EXPECT_EQ(*read_file(e.path() / "tree/mm/memory.c"),
              "one\nTWO\nthree\nfour\nfive\nsix\nSEVEN\n");
    EXPECT_EQ(*read_file(e.path() / "tree/mm/new.c"), "new\n");
  }
  auto meta = load_kernel_meta(built->dir / "kernel.json");
  ASSERT_TRUE(meta.ok()) << meta.error().message;
  EXPECT_EQ(meta->series_form, "mbox");
  ASSERT_EQ(meta->patches.size(), 2u);
  EXPECT_EQ(meta->patches[0].name, "v2-series.mbx#2");
  EXPECT_EQ(meta->patches[1].subject, "mm: shout seven, add new.c");
  EXPECT_EQ(meta->cover_letter.subject, "[PATCH v2 0/2] *** SUBJECT HERE ***");
  EXPECT_EQ(meta->cover_letter.file, "v2-series.mbx#1");
  EXPECT_EQ(meta->cover_letter.sha256.size(), 64u);
  EXPECT_NE(built->source.find("patches v2-series.mbx (cover: [PATCH v2 0/2]"), std::string::npos)
      << built->source;
  make_.calls.clear();
  auto again = b.build(spec("fp"), Arch::kX86_64);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->build_id, built->build_id);
  EXPECT_TRUE(make_.calls.empty());
  // Records name the series as the spec does, with its own cover letter.
  EXPECT_NE(again->source.find("patches fp (cover: [PATCH 0/2] *** SUBJECT HERE ***)"),
            std::string::npos)
      << again->source;
}

TEST_F(SeriesFormsTest, FormatPatchFolderKeepsTheCoverLetterOutOfThePatches) {
  write_format_patch("fp", {"-v3"});
  auto s = load("fp");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->form, SeriesForm::kFormatPatch);
  ASSERT_EQ(s->patches.size(), 2u);
  EXPECT_EQ(s->patches[0].name, "v3-0001-mm-shout-two.patch");
  EXPECT_EQ(s->patches[0].subject, "mm: shout two");
  ASSERT_TRUE(s->cover.has_value());
  EXPECT_EQ(s->cover->subject, "[PATCH v3 0/2] *** SUBJECT HERE ***");
  EXPECT_EQ(fs::path(s->cover->file).filename(), "v3-0000-cover-letter.patch");
}

TEST_F(SeriesFormsTest, B4sCoverFileBesideTheMboxIsTheCoverLetter) {
  tree_.put("project/patches/b4.mbx", git({"format-patch", "--stdout", "HEAD~2"}));
  tree_.put("project/patches/b4.cover",
            "From: A Developer <dev@example.org>\nSubject: [PATCH 0/2] mm: shouting\n\nWhy.\n");
  auto s = load("b4.mbx");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->patches.size(), 2u);
  ASSERT_TRUE(s->cover.has_value());
  EXPECT_EQ(s->cover->subject, "[PATCH 0/2] mm: shouting");
}

TEST_F(SeriesFormsTest, MboxWithoutPatchesOrNotAnMboxAreErrorsNamingTheFile) {
  tree_.put(
      "project/patches/cover-only.mbx",
      "From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: [PATCH 0/2] only words\n\nhi\n");
  auto s = load("cover-only.mbx");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cover-only.mbx: the mbox holds no patches"), std::string::npos)
      << s.error().message;
  tree_.put("project/patches/junk.mbox", "this is not a mailbox\n");
  s = load("junk.mbox");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("junk.mbox: not an mbox git can split"), std::string::npos)
      << s.error().message;
  tree_.put(
      "project/patches/headless.mbx",
      "From 0 Mon Sep 17 00:00:00 2001\n\nno headers at all\n" + git({"diff", "HEAD~1", "HEAD"}));
  s = load("headless.mbx");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("headless.mbx: message 1 is not a mail"), std::string::npos)
      << s.error().message;
}

TEST_F(SeriesFormsTest, NumberingGapsAndDuplicatesNameTheFile) {
  const std::string all = git({"format-patch", "--stdout", "HEAD~2"});
  // 1/2 twice: a duplicate.
  std::string dup = all.substr(0, all.find("From ", 1));
  tree_.put("project/patches/dup.mbx", dup + dup);
  auto s = load("dup.mbx");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("dup.mbx: message 1 \"[PATCH 1/2] mm: shout two\" and "
                                   "message 2 \"[PATCH 1/2] mm: shout two\" are both patch 1/2"),
            std::string::npos)
      << s.error().message;
  // Only 2/2: patch 1/2 is missing.
  tree_.put("project/patches/gap.mbx", all.substr(all.find("From ", 1)));
  s = load("gap.mbx");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("gap.mbx: patch 1/2 is missing (the next one is message 1"),
            std::string::npos)
      << s.error().message;
  // A format-patch folder with a hole in its numbers.
  write_format_patch("holes");
  fs::rename(patches() / "holes/0002-mm-shout-seven-add-new.c.patch",
             patches() / "holes/0003-mm-shout-seven-add-new.c.patch");
  s = load("holes");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(
                "patch 0002 is missing (the next one is 0003-mm-shout-seven-add-new.c.patch)"),
            std::string::npos)
      << s.error().message;
}

TEST_F(SeriesFormsTest, FolderWithNeitherSeriesNorNumberedPatchesIsNamed) {
  tree_.put("project/patches/loose/fix.patch", git({"diff", "HEAD~1", "HEAD"}));
  EXPECT_NE(series_location_problem(patches() / "loose")
                .find("has no 'series' file and no "
                      "NNNN-*.patch files"),
            std::string::npos);
  auto s = load("loose");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("patches/loose has no 'series' file"), std::string::npos)
      << s.error().message;
  tree_.put("project/patches/notes.txt", "x\n");
  EXPECT_NE(series_location_problem(patches() / "notes.txt").find("neither a folder nor an mbox"),
            std::string::npos);
}

TEST_F(SeriesFormsTest, AnMboxPatchThatDoesNotApplyNamesItsSubjectAndHunk) {
  write_mbox("v2-series.mbx");
  tree_.put("src/mm/memory.c", "uno\ndos\ntres\ncuatro\ncinco\nseis\nsiete\n");
  auto r = builder().build(spec("v2-series.mbx"), Arch::kX86_64);
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.error().message;
  EXPECT_NE(msg.find("patch v2-series.mbx#2 \"mm: shout two\" (1/2 in series v2-series.mbx) does "
                     "not apply"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("mm/memory.c: hunk #1 FAILED"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-two\n+TWO"), std::string::npos) << msg;
}

TEST(AppliedDiff, DropsMailHeadersDiffstatAndSignatureButKeepsEveryHunk) {
  const std::string diff =
      "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n"
      " c\n\\ No newline at end of file\n@@ -9 +9 @@\n-x\n+y\n";
  const std::string mail =
      "From 1 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] s\n\nbody\n--- x\n"
      "---\n f | 2 +-\n\n" +
      diff + "-- \n2.39.5\n\n";
  EXPECT_EQ(applied_diff(mail), diff);
  EXPECT_EQ(applied_diff(diff), diff);
  // A hunk line that looks like a signature is still part of its hunk.
  const std::string dash = "--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n-- \n a\n";
  EXPECT_EQ(applied_diff(dash + "-- \n2.39.5\n"), dash);
  // A file with no hunk (a mode change) after the last hunk is kept.
  const std::string mode = "diff --git a/g b/g\nold mode 100644\nnew mode 100755\n";
  EXPECT_EQ(applied_diff(diff + mode + "-- \n2.39.5\n"), diff + mode);
  // No unified diff at all: the whole text, so different texts never share a digest.
  EXPECT_EQ(applied_diff("*** a context diff\n"), "*** a context diff\n");
}

}  // namespace
}  // namespace foliolab
