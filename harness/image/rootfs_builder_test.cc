// Debian root filesystems (issue 20) with mmdebstrap and mkfs.ext4 played by the fake process
// runner: the fake mmdebstrap writes the tree (dpkg's status file), the fake mkfs.ext4 writes the
// disk file; everything else (copying the recipe's files in, the cache's rename) is real.
#include "image/rootfs_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "image/foreign_exec.h"
#include "testing/fake_process_runner.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr const char* kStatus = R"(Package: stress
Status: install ok installed
Priority: optional
Version: 1.0.7-1

Package: old-conf
Status: deinstall ok config-files
Version: 0.9-1

Package: libc6
Status: install ok installed
Version: 2.36-9+deb12u9

Package: half
Status: install ok half-installed
Version: 1.0-1

Package: redis-server
Status: install ok installed
Version: 5:7.0.15-1~deb12u1

Package: redis-tools
Status: install ok installed
Version: 5:7.0.15-1~deb12u1
)";

// The recipe of these tests; its `packages` line is line 2, `files` line 4, `commands` line 6.
constexpr const char* kRecipe = R"(description: a test image
packages: [redis-server, redis-tools, stress]
files:
  - {from: files/redis.conf, to: /etc/foliolab/redis.conf}
commands:
  - [sed, -i, s/a/b/, /etc/foliolab/redis.conf]
)";

Arch other_arch() { return host_arch() == Arch::kX86_64 ? Arch::kArm64 : Arch::kX86_64; }

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::app) << text;
}

ProcessResult failed(int code) {
  ProcessResult r;
  r.exit_code = code;
  return r;
}

class RootfsBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write("images/r.yaml", kRecipe);
    write("images/files/redis.conf", "bind 127.0.0.1\n");
    runner_.version("mmdebstrap 1.3.5");
    // The foreign-arch wrapper: what follows "--" is played as if run directly.
    runner_.on(FakeProcessRunner::program(kSelfExe), [this](const ProcessSpec& spec) {
      ProcessSpec inner = spec;
      inner.argv.assign(spec.argv.begin() + 4, spec.argv.end());
      return play(inner);
    });
    runner_.on(FakeProcessRunner::program("mmdebstrap"),
               [this](const ProcessSpec& spec) { return play(spec); });
    runner_.on(FakeProcessRunner::program("chroot"),
               [this](const ProcessSpec& spec) { return play(spec); });
    runner_.on(FakeProcessRunner::program("mkfs.ext4"),
               [this](const ProcessSpec& spec) { return play(spec); });
  }

  void write(const std::string& rel, const std::string& text) {
    ASSERT_TRUE(write_file_atomic(dir_ / rel, text).ok());
  }

  ImageRecipe recipe() {
    auto r = load_image_recipe((dir_ / "images/r.yaml").string());
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : ImageRecipe{};
  }

  RootfsBuilder builder(ForeignPath foreign = ForeignPath::kBinfmt) {
    return RootfsBuilder(runner_, {.cache = dir_ / "cache",
                                   .self_exe = kSelfExe,
                                   .foreign = foreign,
                                   .second_stage = &stage_});
  }

  // The fake programs, run directly or under __foreign-exec.
  ProcessResult play(const ProcessSpec& spec) {
    const std::string& program = spec.argv[0];
    if (program == "mmdebstrap") {
      ++mmdebstrap_runs_;
      const fs::path root = spec.argv.back();
      if (has(spec.argv, "--variant=extract")) extract_debs(spec.argv);
      EXPECT_TRUE(write_file_atomic(root / "etc/debian_version", "12.9\n").ok());
      EXPECT_TRUE(write_file_atomic(root / "var/lib/dpkg/status", status_).ok());
      if (!mmdebstrap_log_.empty()) {
        append(spec.log_path, mmdebstrap_log_);
        return failed(1);
      }
      return FakeProcessRunner::ok();
    }
    if (program == "chroot") {
      // The recipe's files are in before its commands run.
      EXPECT_TRUE(fs::exists(fs::path(spec.argv[1]) / "etc/foliolab/redis.conf"));
      if (!chroot_log_.empty()) {
        append(spec.log_path, chroot_log_);
        return failed(4);
      }
      return FakeProcessRunner::ok();
    }
    if (program == "mkfs.ext4") {
      const auto d = std::find(spec.argv.begin(), spec.argv.end(), "-d");
      EXPECT_NE(d, spec.argv.end());
      if (d != spec.argv.end()) {
        mkfs_saw_conf_ = fs::exists(fs::path(*(d + 1)) / "etc/foliolab/redis.conf");
        std::error_code ec;
        for (fs::recursive_directory_iterator it(*(d + 1), ec), end; !ec && it != end;
             it.increment(ec)) {
          mkfs_files_.insert(fs::relative(it->path(), *(d + 1)).string());
        }
        mkfs_saw_junk_ = fs::exists(fs::path(*(d + 1)) / "junk");
      }
      const fs::path disk = spec.argv[spec.argv.size() - 2];
      EXPECT_TRUE(write_file_atomic(disk, "ext4 bytes").ok());
      if (!mkfs_log_.empty()) {
        append(spec.log_path, mkfs_log_);
        return failed(1);
      }
      return FakeProcessRunner::ok();
    }
    ADD_FAILURE() << "unexpected program " << program;
    return failed(127);
  }

  // The extract variant keeps the .debs it downloaded: the essential set alone, or everything.
  static void extract_debs(const std::vector<std::string>& argv) {
    const fs::path archives = fs::path(argv.back()) / "var/cache/apt/archives";
    std::vector<std::string> debs = {"dpkg_1.21_arm64.deb", "libc6_2.36_arm64.deb"};
    if (has(argv, "--include=redis-server,redis-tools,stress")) {
      debs.insert(debs.end(), {"apt_2.6_arm64.deb", "stress_1.0.7_arm64.deb"});
    }
    for (const auto& d : debs) EXPECT_TRUE(write_file_atomic(archives / d, "deb").ok());
  }

  // Every disk.ext4 and image.json under <cache>/images/.
  // The build folder <cache>/tmp/<item> of recipe() for this host's arch, which lookup() must
  // not call cached.
  fs::path uncached_tmp(RootfsBuilder& b) {
    auto lookup = b.lookup(recipe(), host_arch());
    EXPECT_TRUE(lookup.ok());
    if (!lookup.ok()) return {};
    EXPECT_FALSE(lookup->cached);
    return dir_ / "cache/tmp" /
           ("rootfs-" + std::string(arch_info(host_arch()).name) + "-r-" + lookup->key);
  }

  std::vector<fs::path> images_in_cache() const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir_ / "cache/images", ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name == "disk.ext4" || name == "image.json") out.push_back(it->path());
    }
    return out;
  }

  // The argvs the fake played whose program (after a __foreign-exec wrapper, if any) is `name`,
  // `--version` left out.
  std::vector<std::vector<std::string>> played(const std::string& name) const {
    std::vector<std::vector<std::string>> out;
    for (const auto& argv : runner_.played) {
      if (argv.size() == 2 && argv[1] == "--version") continue;
      if (argv[0] == name || (argv.size() > 4 && argv[0] == kSelfExe && argv[4] == name)) {
        out.push_back(argv);
      }
    }
    return out;
  }

  static constexpr const char* kSelfExe = "/opt/foliolab/bin/foliolab";
  ScopedTestDir dir_{"foliolab-rootfs"};
  FakeProcessRunner runner_;
  std::string status_ = kStatus;
  // The guest of the second stage: what it was asked to run, and what the disk held then.
  struct FakeStage : SecondStage {
    Result<void> run(Arch a, const fs::path& disk,
                     const std::vector<std::vector<std::string>>& cmds,
                     const fs::path& d) override {
      ++runs;
      arch = a;
      commands = cmds;
      disk_there = fs::exists(disk);
      dir = d;
      if (!fail.empty()) return make_env_error(fail);
      return {};
    }
    int runs = 0;
    Arch arch = Arch::kX86_64;
    std::vector<std::vector<std::string>> commands;
    bool disk_there = false;
    fs::path dir;
    std::string fail;  // non-empty: the second stage fails so
  } stage_;
  std::string mmdebstrap_log_, chroot_log_, mkfs_log_;  // non-empty: that program fails so
  int mmdebstrap_runs_ = 0;
  bool mkfs_saw_conf_ = false, mkfs_saw_junk_ = false;
  std::set<std::string> mkfs_files_;  // the tree mkfs.ext4 -d packed, relative paths
};

TEST(InstalledPackages, OnlyInstalledOnesSortedByName) {
  EXPECT_THAT(
      installed_packages(kStatus),
      ElementsAre(Pair("libc6", "2.36-9+deb12u9"), Pair("redis-server", "5:7.0.15-1~deb12u1"),
                  Pair("redis-tools", "5:7.0.15-1~deb12u1"), Pair("stress", "1.0.7-1")));
  EXPECT_TRUE(installed_packages("").empty());
  // The last entry needs no blank line after it; one with no Result<void> is not installed.
  EXPECT_THAT(installed_packages("Package: a\nVersion: 1\n\nPackage: b\nVersion: 2\n"
                                 "Status: install ok installed"),
              ElementsAre(Pair("b", "2")));
}

TEST(RootfsDiskMib, FilesWithAQuarterMoreAndTheFreeSpaceAtLeast64) {
  EXPECT_EQ(rootfs_disk_mib(0, 256), 257u);
  EXPECT_EQ(rootfs_disk_mib(0, 16), 64u);                      // the floor
  EXPECT_EQ(rootfs_disk_mib(uint64_t{100} << 20, 256), 382u);  // 125 + 256 + 1
  EXPECT_EQ(rootfs_disk_mib(uint64_t{1} << 30, 16), 1297u);    // 1280 + 16 + 1
}

TEST_F(RootfsBuilderTest, BuildWritesTheDiskAndItsManifestThenHitsTheCache) {
  const ImageRecipe r = recipe();
  RootfsBuilder b = builder();
  auto before = b.lookup(r, host_arch());
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_FALSE(before->cached);
  EXPECT_EQ(before->key.size(), 16u);

  auto art = b.build(r, host_arch());
  ASSERT_TRUE(art.ok()) << art.error().message;
  const std::string item =
      "rootfs-" + std::string(arch_info(host_arch()).name) + "-r-" + before->key;
  EXPECT_EQ(art->dir, dir_ / "cache/images" / item);
  EXPECT_EQ(art->disk, art->dir / "disk.ext4");
  EXPECT_EQ(art->recipe, "r");
  EXPECT_FALSE(art->cache_hit);
  EXPECT_EQ(art->packages, 4u);
  EXPECT_EQ(art->image_id.size(), 16u);
  EXPECT_TRUE(mkfs_saw_conf_);  // the recipe's file is in the tree mkfs.ext4 packs
  EXPECT_TRUE(fs::exists(art->disk));
  EXPECT_FALSE(fs::exists(dir_ / "cache/tmp" / item));  // renamed into place

  auto text = read_file(art->dir / "image.json");
  ASSERT_TRUE(text.ok());
  const auto j = nlohmann::json::parse(*text);
  EXPECT_EQ(j.at("schema"), 1);
  EXPECT_EQ(j.at("kind"), "rootfs");
  EXPECT_EQ(j.at("recipe"), "r");
  EXPECT_EQ(j.at("recipe_key"), before->key);
  EXPECT_EQ(j.at("image_id"), art->image_id);
  EXPECT_EQ(j.at("arch"), arch_info(host_arch()).name);
  EXPECT_EQ(j.at("suite"), "bookworm");
  EXPECT_EQ(j.at("variant"), "minbase");
  EXPECT_EQ(j.at("requested"), nlohmann::json({"redis-server", "redis-tools", "stress"}));
  EXPECT_EQ(j.at("manifest"),
            nlohmann::json::parse(R"([{"package": "libc6", "version": "2.36-9+deb12u9"},
                                      {"package": "redis-server", "version": "5:7.0.15-1~deb12u1"},
                                      {"package": "redis-tools", "version": "5:7.0.15-1~deb12u1"},
                                      {"package": "stress", "version": "1.0.7-1"}])"));
  EXPECT_EQ(j.at("disk_mib"), 257);

  const auto mkfs = played("mkfs.ext4");
  ASSERT_EQ(mkfs.size(), 1u);
  EXPECT_TRUE(has(mkfs[0], "257M")) << format_argv(mkfs[0]);
  EXPECT_TRUE(has(mkfs[0], "foliolab-root")) << format_argv(mkfs[0]);

  auto again = b.build(r, host_arch());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->image_id, art->image_id);
  EXPECT_EQ(again->disk, art->disk);
  EXPECT_EQ(again->packages, 4u);
  EXPECT_EQ(mmdebstrap_runs_, 1);
  EXPECT_EQ(played("mkfs.ext4").size(), 1u);
  auto after = b.lookup(r, host_arch());
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->cached);
  EXPECT_EQ(after->key, before->key);
}

TEST_F(RootfsBuilderTest, ImageIdFollowsThePackageVersionsTheDirTheRecipe) {
  const ImageRecipe r = recipe();
  RootfsBuilder b = builder();
  auto first = b.build(r, host_arch());
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(remove_tree(first->dir).ok());
  // Another archive day: redis got a point release.
  const std::string from = "5:7.0.15-1~deb12u1";
  status_.replace(status_.find(from), from.size(), "5:7.0.15-1~deb12u2");
  auto second = b.build(r, host_arch());
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second->cache_hit);
  EXPECT_EQ(second->dir, first->dir);
  EXPECT_NE(second->image_id, first->image_id);
  EXPECT_EQ(mmdebstrap_runs_, 2);
}

TEST_F(RootfsBuilderTest, KeyCoversTheFilesCopiedIn) {
  const ImageRecipe r = recipe();
  RootfsBuilder b = builder();
  auto art = b.build(r, host_arch());
  ASSERT_TRUE(art.ok()) << art.error().message;
  write("images/files/redis.conf", "bind 0.0.0.0\n");
  auto lookup = b.lookup(r, host_arch());
  ASSERT_TRUE(lookup.ok());
  EXPECT_FALSE(lookup->cached);
  EXPECT_FALSE(art->dir.string().ends_with(lookup->key));
}

TEST_F(RootfsBuilderTest, MissingPackageIsAnInputErrorAtTheRecipesLineAndNoImage) {
  write("images/r.yaml", "packages:\n  - stress\n  - redis-servr\n");
  mmdebstrap_log_ =
      "I: running apt-get update...\nE: Unable to locate package redis-servr\n"
      "E: apt-get --yes install failed\n";
  RootfsBuilder b = builder();
  auto art = b.build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kInput);
  const std::string recipe_file = (dir_ / "images/r.yaml").string();
  EXPECT_THAT(art.error().message, HasSubstr(recipe_file + ":3:5: packages[1]: "));
  EXPECT_THAT(art.error().message, HasSubstr("has no package 'redis-servr'"));
  EXPECT_TRUE(images_in_cache().empty());
  // The half-written tree is gone; the log is kept for a look.
  const fs::path tmp = uncached_tmp(b);
  EXPECT_FALSE(fs::exists(tmp / "root"));
  EXPECT_TRUE(fs::exists(tmp / "build.log"));
  EXPECT_TRUE(played("mkfs.ext4").empty());
}

TEST_F(RootfsBuilderTest, NoInstallationCandidateIsTheSameInputError) {
  write("images/r.yaml", "packages: [stress, redis-server]\n");
  mmdebstrap_log_ = "E: Package 'redis-server' has no installation candidate\n";
  auto art = builder().build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kInput);
  EXPECT_THAT(art.error().message, HasSubstr(":1:20: packages[1]: "));
  EXPECT_THAT(art.error().message, HasSubstr("has no package 'redis-server'"));
}

// A missing package whose name extends another listed package's name is named as itself.
TEST_F(RootfsBuilderTest, MissingPackageIsNotMistakenForOneItsNameStartsWith) {
  write("images/r.yaml", "packages: [stress, stress-ngg]\n");
  mmdebstrap_log_ = "E: Unable to locate package stress-ngg\n";
  auto art = builder().build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_THAT(art.error().message, HasSubstr(":1:20: packages[1]: "));
  EXPECT_THAT(art.error().message, HasSubstr("has no package 'stress-ngg'"));
}

TEST_F(RootfsBuilderTest, OtherMmdebstrapFailureIsAnEnvironmentErrorWithTheLogsTail) {
  mmdebstrap_log_ = "E: cannot reach deb.debian.org\n";
  auto art = builder().build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kEnvironment);
  EXPECT_THAT(art.error().message, HasSubstr("image r ("));
  EXPECT_THAT(art.error().message, HasSubstr("mmdebstrap failed (exit status 1)"));
  EXPECT_THAT(art.error().message, HasSubstr("E: cannot reach deb.debian.org"));
  EXPECT_TRUE(images_in_cache().empty());
}

TEST_F(RootfsBuilderTest, FullDiskInMkfsIsAnEnvironmentErrorAndNoImage) {
  mkfs_log_ = "mkfs.ext4: No space left on device while populating file system\n";
  RootfsBuilder b = builder();
  auto art = b.build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kEnvironment);
  EXPECT_THAT(art.error().message, HasSubstr("mkfs.ext4 -d of 257 MiB failed (exit status 1)"));
  EXPECT_THAT(art.error().message, HasSubstr("No space left on device"));
  EXPECT_TRUE(images_in_cache().empty());
  const fs::path tmp = uncached_tmp(b);
  EXPECT_FALSE(fs::exists(tmp / "disk.ext4"));  // the partial disk is gone
  EXPECT_FALSE(fs::exists(tmp / "root"));
  // The next build starts over and succeeds.
  mkfs_log_.clear();
  auto again = b.build(recipe(), host_arch());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->cache_hit);
  EXPECT_EQ(mmdebstrap_runs_, 2);
}

TEST_F(RootfsBuilderTest, FailingRecipeCommandIsNamedAndLeavesNoImage) {
  chroot_log_ = "sed: can't read /etc/foliolab/redis.conf: No such file or directory\n";
  auto art = builder().build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kEnvironment);
  EXPECT_THAT(art.error().message,
              HasSubstr("commands[0] `sed -i s/a/b/ /etc/foliolab/redis.conf` failed (exit "
                        "status 4)"));
  EXPECT_THAT(art.error().message, HasSubstr("sed: can't read"));
  EXPECT_TRUE(images_in_cache().empty());
  EXPECT_TRUE(played("mkfs.ext4").empty());
}

TEST_F(RootfsBuilderTest, MissingFileToCopyInIsAnInputErrorAtItsEntry) {
  ASSERT_TRUE(remove_tree(dir_ / "images/files").ok());
  RootfsBuilder b = builder();
  auto art = b.build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kInput);
  const std::string recipe_file = (dir_ / "images/r.yaml").string();
  EXPECT_EQ(art.error().message, recipe_file +
                                     ":4:5: files: " + (dir_ / "images/files/redis.conf").string() +
                                     ": no such file");
  EXPECT_EQ(mmdebstrap_runs_, 0);  // refused before anything runs
  auto lookup = b.lookup(recipe(), host_arch());
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.error().message, art.error().message);
}

TEST_F(RootfsBuilderTest, WhatAKilledBuildLeftIsRemovedBeforeTheNextOne) {
  RootfsBuilder b = builder();
  auto lookup = b.lookup(recipe(), host_arch());
  ASSERT_TRUE(lookup.ok());
  const std::string item =
      "rootfs-" + std::string(arch_info(host_arch()).name) + "-r-" + lookup->key;
  write("cache/tmp/" + item + "/root/junk", "left by a SIGKILLed build\n");
  write("cache/images/" + item + "/disk.ext4", "half");  // no image.json: not an image
  auto art = b.build(recipe(), host_arch());
  ASSERT_TRUE(art.ok()) << art.error().message;
  EXPECT_FALSE(art->cache_hit);
  EXPECT_FALSE(mkfs_saw_junk_);
  auto disk = read_file(art->disk);
  ASSERT_TRUE(disk.ok());
  EXPECT_EQ(*disk, "ext4 bytes");
}

TEST_F(RootfsBuilderTest, DamagedImageJsonIsRebuilt) {
  RootfsBuilder b = builder();
  auto art = b.build(recipe(), host_arch());
  ASSERT_TRUE(art.ok()) << art.error().message;
  write("cache/images/" + art->dir.filename().string() + "/image.json", "{\"schema\": 1,");
  auto lookup = b.lookup(recipe(), host_arch());  // what build() would find: nothing usable
  ASSERT_TRUE(lookup.ok());
  EXPECT_FALSE(lookup->cached);
  auto again = b.build(recipe(), host_arch());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->cache_hit);
  EXPECT_EQ(again->image_id, art->image_id);
  EXPECT_EQ(mmdebstrap_runs_, 2);
}

TEST_F(RootfsBuilderTest, NativeArchRunsMmdebstrapDirectly) {
  auto art = builder().build(recipe(), host_arch());
  ASSERT_TRUE(art.ok()) << art.error().message;
  const auto mm = played("mmdebstrap");
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_EQ(mm[0][0], "mmdebstrap");
  EXPECT_TRUE(has(mm[0], "--mode=root"));
  EXPECT_TRUE(has(mm[0], "--variant=minbase"));
  EXPECT_TRUE(has(mm[0], "--architectures=" + std::string(arch_info(host_arch()).debian_arch)));
  EXPECT_TRUE(has(mm[0], "--include=redis-server,redis-tools,stress"));
  EXPECT_EQ(mm[0][mm[0].size() - 2], "bookworm");
  for (const auto& argv : runner_.played) EXPECT_NE(argv[0], kSelfExe) << format_argv(argv);
}

TEST_F(RootfsBuilderTest, ForeignArchWrapsMmdebstrapAndCommandsInForeignExec) {
  const Arch arch = other_arch();
  const std::string name(arch_info(arch).name);
  auto art = builder().build(recipe(), arch);
  ASSERT_TRUE(art.ok()) << art.error().message;
  EXPECT_EQ(art->dir.filename().string().rfind("rootfs-" + name + "-r-", 0), 0u);
  const auto mm = played("mmdebstrap");
  ASSERT_EQ(mm.size(), 1u);
  ASSERT_GT(mm[0].size(), 5u);
  EXPECT_THAT(std::vector<std::string>(mm[0].begin(), mm[0].begin() + 5),
              ElementsAre(kSelfExe, kForeignExecCommand, name, "--", "mmdebstrap"));
  EXPECT_TRUE(has(mm[0], "--architectures=" + std::string(arch_info(arch).debian_arch)));
  const auto chroot = played("chroot");
  ASSERT_EQ(chroot.size(), 1u);
  EXPECT_THAT(std::vector<std::string>(chroot[0].begin(), chroot[0].begin() + 5),
              ElementsAre(kSelfExe, kForeignExecCommand, name, "--", "chroot"));
  const auto mkfs = played("mkfs.ext4");  // a host program, run directly
  ASSERT_EQ(mkfs.size(), 1u);
  EXPECT_EQ(mkfs[0][0], "mkfs.ext4");
}

TEST_F(RootfsBuilderTest, RecipeCommandsRunChrootedInTheTreeInOrder) {
  write("images/r.yaml", std::string(kRecipe) + "  - [true]\n");
  auto art = builder().build(recipe(), host_arch());
  ASSERT_TRUE(art.ok()) << art.error().message;
  const auto chroot = played("chroot");
  ASSERT_EQ(chroot.size(), 2u);
  const std::string root = chroot[0][1];
  EXPECT_TRUE(root.starts_with((dir_ / "cache/tmp").string())) << root;
  EXPECT_TRUE(root.ends_with("/root")) << root;
  EXPECT_THAT(chroot[0],
              ElementsAre("chroot", root, "sed", "-i", "s/a/b/", "/etc/foliolab/redis.conf"));
  EXPECT_THAT(chroot[1], ElementsAre("chroot", root, "true"));
  // mmdebstrap, then the commands, then mkfs.ext4.
  std::vector<std::string> order;
  for (const auto& argv : runner_.played) {
    if (argv.size() != 2 || argv[1] != "--version") order.push_back(argv[0]);
  }
  EXPECT_THAT(order, ElementsAre("mmdebstrap", "chroot", "chroot", "mkfs.ext4"));
}

TEST_F(RootfsBuilderTest, WithoutMmdebstrapItSaysWhichPackageToInstall) {
  FakeProcessRunner runner;
  runner.on(FakeProcessRunner::program("mmdebstrap"), [](const ProcessSpec&) {
    ProcessResult r;
    r.spawn_error = "No such file or directory";
    return r;
  });
  RootfsBuilder b(runner, {.cache = dir_ / "cache", .self_exe = kSelfExe});
  auto art = b.build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kEnvironment);
  EXPECT_THAT(art.error().message, HasSubstr("Debian package mmdebstrap"));
}

// mmdebstrap said it succeeded but left no dpkg database: the host's fault, not the recipe's,
// and the tree is not kept.
TEST_F(RootfsBuilderTest, ATreeWithoutDpkgStatusIsAnEnvironmentErrorAndNoImage) {
  write("images/r.yaml", "packages: [stress]\n");
  FakeProcessRunner bare;
  bare.version("mmdebstrap 1.3.5");
  bare.on(FakeProcessRunner::program("mmdebstrap"), [](const ProcessSpec& spec) {
    EXPECT_TRUE(write_file_atomic(fs::path(spec.argv.back()) / "etc/debian_version", "12\n").ok());
    return FakeProcessRunner::ok();
  });
  RootfsBuilder b(bare, {.cache = dir_ / "cache", .self_exe = kSelfExe});
  auto art = b.build(recipe(), host_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kEnvironment) << art.error().message;
  EXPECT_THAT(art.error().message, HasSubstr("var/lib/dpkg/status"));
  EXPECT_TRUE(images_in_cache().empty());
  auto lookup = b.lookup(recipe(), host_arch());
  ASSERT_TRUE(lookup.ok());
  const fs::path tmp = dir_ / "cache/tmp" /
                       ("rootfs-" + std::string(arch_info(host_arch()).name) + "-r-" + lookup->key);
  EXPECT_FALSE(fs::exists(tmp / "root"));  // the tree is not kept
}

// The second stage's way (image/second_stage.h): nothing of the target arch runs on the host.
// mmdebstrap's extract variant runs twice (the essential set into the tree; everything into a
// folder thrown away), the .debs go into the tree, the disk is packed with them, the guest runs
// install / the recipe's commands / finish, and the manifest is read out of the disk.
class RootfsGuestTest : public RootfsBuilderTest {
 protected:
  void SetUp() override {
    RootfsBuilderTest::SetUp();
    runner_.on(FakeProcessRunner::program("e2fsck"), [](const ProcessSpec&) {
      return failed(1);  // "errors corrected": the guest's journal replayed
    });
    runner_.on(FakeProcessRunner::program("debugfs"), [this](const ProcessSpec& spec) {
      EXPECT_THAT(spec.argv,
                  ElementsAre("debugfs", "-R", "cat /var/lib/dpkg/status", HasSubstr("disk.ext4")));
      return FakeProcessRunner::ok("debugfs 1.47.0 (5-Feb-2023)\n" + status_);
    });
  }
};

TEST_F(RootfsGuestTest, UnpacksOnTheHostAndInstallsInAGuestOfTheArch) {
  const Arch arch = other_arch();
  auto art = builder(ForeignPath::kGuest).build(recipe(), arch);
  ASSERT_TRUE(art.ok()) << art.error().message;
  for (const auto& argv : runner_.played) EXPECT_NE(argv[0], kSelfExe) << format_argv(argv);
  const auto mm = played("mmdebstrap");
  ASSERT_EQ(mm.size(), 2u);
  for (const auto& argv : mm) {
    EXPECT_TRUE(has(argv, "--variant=extract"));
    EXPECT_TRUE(has(argv, "--skip=cleanup/apt/cache"));
    EXPECT_TRUE(has(argv, "--architectures=" + std::string(arch_info(arch).debian_arch)));
    EXPECT_TRUE(has(argv, "--include=?essential"));
  }
  // minbase: Priority required and apt, as mmdebstrap's own variant.
  EXPECT_TRUE(has(mm[1], "--include=?priority(required)"));
  EXPECT_TRUE(has(mm[1], "--include=apt"));
  EXPECT_TRUE(has(mm[1], "--include=redis-server,redis-tools,stress"));
  EXPECT_TRUE(mkfs_files_.count("foliolab-stage2/essential/dpkg_1.21_arm64.deb"));
  EXPECT_TRUE(mkfs_files_.count("foliolab-stage2/rest/stress_1.0.7_arm64.deb"));
  EXPECT_FALSE(mkfs_files_.count("foliolab-stage2/rest/dpkg_1.21_arm64.deb"));  // once only
  EXPECT_TRUE(mkfs_files_.count("foliolab-stage2/run"));
  EXPECT_TRUE(mkfs_files_.count("usr/sbin/policy-rc.d"));
  EXPECT_TRUE(mkfs_files_.count("etc/foliolab/redis.conf"));
  EXPECT_EQ(stage_.runs, 1);
  EXPECT_EQ(stage_.arch, arch);
  EXPECT_TRUE(stage_.disk_there);
  ASSERT_EQ(stage_.commands.size(), 3u);
  EXPECT_THAT(stage_.commands[0], ElementsAre("/bin/sh", "/foliolab-stage2/run", "install"));
  EXPECT_EQ(stage_.commands[1].front(), "/usr/bin/env");
  EXPECT_THAT(stage_.commands[1], ::testing::Contains("DEBIAN_FRONTEND=noninteractive"));
  EXPECT_THAT(std::vector<std::string>(stage_.commands[1].end() - 4, stage_.commands[1].end()),
              ElementsAre("sed", "-i", "s/a/b/", "/etc/foliolab/redis.conf"));
  EXPECT_THAT(stage_.commands[2], ElementsAre("/bin/sh", "/foliolab-stage2/run", "finish"));
  EXPECT_EQ(art->packages, 4u);  // the manifest came out of the disk
  auto meta = read_file(art->dir / "image.json");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(nlohmann::json::parse(*meta)["made"], "unpacked here, second stage in a guest");
}

TEST_F(RootfsGuestTest, TheWayIsPartOfTheKey) {
  auto binfmt = builder(ForeignPath::kBinfmt).lookup(recipe(), other_arch());
  auto guest = builder(ForeignPath::kGuest).lookup(recipe(), other_arch());
  ASSERT_TRUE(binfmt.ok() && guest.ok());
  EXPECT_NE(binfmt->key, guest->key);
  // The host's own arch has one way whatever is asked.
  EXPECT_EQ(builder(ForeignPath::kBinfmt).lookup(recipe(), host_arch())->key,
            builder(ForeignPath::kGuest).lookup(recipe(), host_arch())->key);
}

TEST_F(RootfsGuestTest, AFailingSecondStageIsNamedAndLeavesNoImage) {
  stage_.fail = "setup[0] /bin/sh: exited with status 1; its output ends: dpkg: error";
  auto art = builder(ForeignPath::kGuest).build(recipe(), other_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind, ErrorKind::kEnvironment);
  const std::string name(arch_info(other_arch()).name);
  EXPECT_THAT(art.error().message, HasSubstr("image r (" + name + "): second stage in a " + name +
                                             " guest: setup[0] /bin/sh: exited with status 1"));
  EXPECT_TRUE(images_in_cache().empty());
  EXPECT_TRUE(played("debugfs").empty());
}

TEST_F(RootfsGuestTest, WithoutAGuestToRunItTheBuildSaysSo) {
  RootfsBuilder b(runner_,
                  {.cache = dir_ / "cache", .self_exe = kSelfExe, .foreign = ForeignPath::kGuest});
  auto art = b.build(recipe(), other_arch());
  ASSERT_FALSE(art.ok());
  EXPECT_THAT(art.error().message, HasSubstr("no guest for the second stage here"));
  EXPECT_TRUE(played("mmdebstrap").empty());
}

TEST(ForeignPath, NamesRoundTrip) {
  for (ForeignPath p : {ForeignPath::kAuto, ForeignPath::kBinfmt, ForeignPath::kGuest}) {
    EXPECT_EQ(parse_foreign_path(foreign_path_name(p)), p);
  }
  EXPECT_FALSE(parse_foreign_path("qemu").has_value());
}

}  // namespace
}  // namespace foliolab
