// What separates two kernels, as bisect's candidates: a series added to one tree, two commits
// of one git source, or an error naming the difference.
#include "bisect/bisect_origin.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

KernelMeta tree(const std::string& id, std::vector<std::string> patches = {}) {
  KernelMeta k;
  k.build_id = id;
  k.arch = "x86_64";
  k.source = {.id = "debian-6.12", .location = "/usr/src/linux-source-6.12.tar.xz"};
  if (!patches.empty()) k.series = "nightly";
  for (const std::string& p : patches) k.patches.push_back({.name = p, .sha256 = "sha-" + p});
  k.config_requests = {"CONFIG_TRANSPARENT_HUGEPAGE=y (base)"};
  return k;
}

KernelMeta git(const std::string& id, const std::string& commit) {
  KernelMeta k = tree(id);
  k.source = {.id = "git-" + commit, .location = "/src/linux", .git_commit = commit};
  return k;
}

TEST(BisectOrigin, PatchesAddedToOneTreeAreTheLaterSeries) {
  auto none = bisect_origin(tree("a"), tree("b", {"1", "2", "3"}));
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->series, "nightly");
  EXPECT_EQ(none->flag(), "--series nightly");
  // A series that grew: the earlier patches are the later one's first.
  auto grew = bisect_origin(tree("a", {"1", "2"}), tree("b", {"1", "2", "3", "4"}));
  ASSERT_TRUE(grew.ok()) << grew.error().message;
  EXPECT_EQ(grew->series, "nightly");
  EXPECT_EQ(grew->good_patches, 2u);  // only what it grew by is walked
  EXPECT_EQ(grew->flag(), "--series nightly --good-patches 2");
}

TEST(BisectOrigin, TwoCommitsOfOneGitSourceAreARange) {
  auto r = bisect_origin(git("a", "1111"), git("b", "2222"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->range, "1111..2222");
  EXPECT_EQ(r->flag(), "--range 1111..2222");
}

TEST(BisectOrigin, WhatABisectionCannotWalkIsNamed) {
  auto same = bisect_origin(tree("a"), tree("a"));
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.error().message.find("both sides booted kernel a"), std::string::npos);

  auto rewritten = bisect_origin(tree("a", {"1", "2"}), tree("b", {"1", "9", "3"}));
  ASSERT_FALSE(rewritten.ok());
  EXPECT_NE(rewritten.error().message.find("do not extend"), std::string::npos)
      << rewritten.error().message;
  EXPECT_FALSE(bisect_origin(tree("a", {"1", "2"}), tree("b", {"1"})).ok());

  KernelMeta other_config = tree("b", {"1"});
  other_config.config_requests.push_back("CONFIG_NUMA=y (numa)");
  auto config = bisect_origin(tree("a"), other_config);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.error().message.find("CONFIG_NUMA=y"), std::string::npos);

  KernelMeta patched = git("b", "2222");
  patched.series = "nightly";
  patched.patches.push_back({.name = "1", .sha256 = "sha-1"});
  EXPECT_FALSE(bisect_origin(git("a", "1111"), patched).ok());
  auto sources = bisect_origin(tree("a"), git("b", "2222"));
  ASSERT_FALSE(sources.ok());
  EXPECT_NE(sources.error().message.find("other sources"), std::string::npos);
}

TEST(BisectOrigin, RunRecordsNameTheirKernelsInTheCache) {
  const fs::path cache = fresh_test_dir("foliolab-bisect-origin");
  for (const KernelMeta& k : {tree("a"), tree("b", {"1"})}) {
    ASSERT_TRUE(
        write_file_atomic(cache / "kernels" / k.build_id / "kernel.json", k.to_json().dump()).ok());
  }
  RunRecord good, bad;
  good.provenance.kernel_build_id = "a";
  bad.provenance.kernel_build_id = "b";
  auto r = bisect_origin(good, bad, cache);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->series, "nightly");
  // The same build, first made by another series of the same patches: the run's name counts.
  bad.id.kernel.patches = "mine";
  r = bisect_origin(good, bad, cache);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->series, "mine");
  bad.id.run_id = "x86_64.k.thp.fault.1";
  bad.provenance.kernel_build_id = "c";
  auto evicted = bisect_origin(good, bad, cache);
  ASSERT_FALSE(evicted.ok());
  EXPECT_NE(evicted.error().message.find("kernel c is not in the cache"), std::string::npos)
      << evicted.error().message;
  bad.provenance.kernel_build_id.clear();
  bad.status = "build-failed";
  EXPECT_FALSE(bisect_origin(good, bad, cache).ok());
  fs::remove_all(cache);
}

}  // namespace
}  // namespace foliolab
