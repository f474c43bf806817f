// Debian root filesystem recipes (images/<name>.yaml, issue 20): every key read, and every
// mistake located file:line:col with its key path.
#include "model/image_recipe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"

namespace foliolab {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

constexpr const char* kFile = "images/debian-redis.yaml";

constexpr const char* kFullRecipe = R"(description: redis and stress
suite: bookworm
variant: minbase
packages: [redis-server, redis-tools, stress]
files:
  - {from: files/redis.conf, to: /etc/foliolab/redis.conf}
commands:
  - [sed, -i, "s/^bind .*/bind 127.0.0.1/", /etc/redis/redis.conf]
  - systemctl mask redis-server
free: 512M
)";

std::string recipe_error(const std::string& text) {
  auto r = parse_image_recipe(text, kFile);
  if (r.ok()) return "<parsed without error>";
  return r.error().message;
}

TEST(ImageRecipe, ParsesEveryKey) {
  auto r = parse_image_recipe(kFullRecipe, kFile);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "debian-redis");
  EXPECT_EQ(r->file, kFile);
  EXPECT_EQ(r->description, "redis and stress");
  EXPECT_EQ(r->suite, "bookworm");
  EXPECT_EQ(r->variant, "minbase");
  EXPECT_THAT(r->packages, ElementsAre("redis-server", "redis-tools", "stress"));
  ASSERT_EQ(r->package_locs.size(), 3u);
  EXPECT_EQ(r->package_locs[0].str(), "images/debian-redis.yaml:4:12");
  EXPECT_EQ(r->package_locs[2].str(), "images/debian-redis.yaml:4:39");
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].from, "files/redis.conf");
  EXPECT_EQ(r->files[0].to, "/etc/foliolab/redis.conf");
  EXPECT_EQ(r->files[0].loc.str(), "images/debian-redis.yaml:6:5");
  ASSERT_EQ(r->commands.size(), 2u);
  EXPECT_THAT(r->commands[0],
              ElementsAre("sed", "-i", "s/^bind .*/bind 127.0.0.1/", "/etc/redis/redis.conf"));
  EXPECT_THAT(r->commands[1], ElementsAre("systemctl", "mask", "redis-server"));  // words
  EXPECT_EQ(r->free_mb, 512u);
}

TEST(ImageRecipe, DefaultsForOptionalKeys) {
  auto r = parse_image_recipe("packages: [stress]\n", "images/small.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "small");
  EXPECT_EQ(r->suite, "bookworm");
  EXPECT_EQ(r->variant, "minbase");
  EXPECT_TRUE(r->files.empty());
  EXPECT_TRUE(r->commands.empty());
  EXPECT_EQ(r->free_mb, 256u);
}

TEST(ImageRecipe, ShippedRecipeLoadsFromTheTree) {
  const std::string path = std::string(source_dir()) + "/images/debian-redis.yaml";
  auto r = load_image_recipe(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->name, "debian-redis");
  EXPECT_THAT(r->packages, ElementsAre("redis-server", "redis-tools", "stress", "stress-ng"));
  auto found = find_image_recipe(SearchPath({}, source_dir()), "debian-redis");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, std::filesystem::path(path));
  EXPECT_EQ(found->origin, "foliolab");
  // The kernel-build image: its commands unpack, configure and prepare the tree.
  auto kbuild = load_image_recipe(std::string(source_dir()) + "/images/debian-kbuild.yaml");
  ASSERT_TRUE(kbuild.ok()) << kbuild.error().message;
  EXPECT_THAT(kbuild->packages, Contains("linux-source-6.12"));
  ASSERT_EQ(kbuild->commands.size(), 4u);
  EXPECT_THAT(kbuild->commands[3], Contains("prepare"));
}

TEST(ImageRecipe, RecipeNamesAreTheYamlFilesUnderImages) {
  ScopedTestDir dir("foliolab-recipes");
  ASSERT_TRUE(write_file_atomic(dir / "images/b.yaml", "packages: [stress]\n").ok());
  ASSERT_TRUE(write_file_atomic(dir / "images/a.yaml", "packages: [stress]\n").ok());
  ASSERT_TRUE(write_file_atomic(dir / "images/notes.txt", "x\n").ok());
  EXPECT_THAT(image_recipe_names(SearchPath({}, dir.path())), ElementsAre("a", "b"));
  EXPECT_TRUE(image_recipe_names(SearchPath({}, dir / "nothing-here")).empty());
}

TEST(ImageRecipe, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(recipe_error("pakages: [stress]\n"),
            "images/debian-redis.yaml:1:1: pakages: unknown key; did you mean 'packages'?");
  EXPECT_EQ(recipe_error("packages: [stress]\nfiles:\n  - {form: a, to: /a}\n"),
            "images/debian-redis.yaml:3:6: files[0].form: unknown key; did you mean 'from'?");
}

TEST(ImageRecipe, InvalidPackageName) {
  EXPECT_EQ(recipe_error("packages: [stress, Redis_Server]\n"),
            "images/debian-redis.yaml:1:20: packages[1]: 'Redis_Server' is not a Debian package "
            "name (lower-case letters, digits, + - .)");
  EXPECT_EQ(recipe_error("packages: [x]\n"),  // at least two characters
            "images/debian-redis.yaml:1:12: packages[0]: 'x' is not a Debian package name "
            "(lower-case letters, digits, + - .)");
  EXPECT_EQ(recipe_error("packages: [-x]\n"),  // starts with a letter or digit
            "images/debian-redis.yaml:1:12: packages[0]: '-x' is not a Debian package name "
            "(lower-case letters, digits, + - .)");
  EXPECT_TRUE(parse_image_recipe("packages: [g++, libc6.1, 0ad]\n", kFile).ok());
}

TEST(ImageRecipe, DuplicatePackageSaysWhereItWasFirst) {
  EXPECT_EQ(recipe_error("packages:\n  - stress\n  - redis-server\n  - stress\n"),
            "images/debian-redis.yaml:4:5: packages[2]: package 'stress' listed twice (first at "
            "2:5)");
}

TEST(ImageRecipe, FileTargetMustBeAnAbsolutePathWithoutDotDot) {
  const std::string head = "packages: [stress]\nfiles:\n";
  EXPECT_EQ(recipe_error(head + "  - {from: a.conf, to: etc/a.conf}\n"),
            "images/debian-redis.yaml:3:24: files[0].to: 'etc/a.conf' must be an absolute file "
            "path without . or ..");
  EXPECT_EQ(recipe_error(head + "  - {from: a.conf, to: /etc/../root/a.conf}\n"),
            "images/debian-redis.yaml:3:24: files[0].to: '/etc/../root/a.conf' must be an "
            "absolute file path without . or ..");
  EXPECT_EQ(recipe_error(head + "  - {from: a.conf, to: /etc/}\n"),  // a file, not a folder
            "images/debian-redis.yaml:3:24: files[0].to: '/etc/' must be an absolute file path "
            "without . or ..");
  EXPECT_EQ(recipe_error(head + "  - {from: a.conf}\n"),
            "images/debian-redis.yaml:3:5: files[0]: missing required key 'to'");
}

TEST(ImageRecipe, PackagesAreRequiredAndNotEmpty) {
  EXPECT_EQ(recipe_error("suite: bookworm\n"),
            "images/debian-redis.yaml:1:1: missing required key 'packages'");
  EXPECT_EQ(recipe_error("packages: []\n"),
            "images/debian-redis.yaml:1:11: packages: must list at least one package, e.g. "
            "[redis-server]");
}

TEST(ImageRecipe, UnknownVariantOrSuiteSuggestsTheClosest) {
  EXPECT_EQ(recipe_error("variant: minbse\npackages: [stress]\n"),
            "images/debian-redis.yaml:1:10: variant: unknown variant 'minbse'; did you mean "
            "'minbase'? (valid: essential, apt, required, minbase, buildd, important, standard)");
  EXPECT_EQ(recipe_error("suite: bookwrm\npackages: [stress]\n"),
            "images/debian-redis.yaml:1:8: suite: unknown suite 'bookwrm'; did you mean "
            "'bookworm'? (valid: bookworm)");
}

TEST(ImageRecipe, FreeSpaceIsAtLeast16M) {
  EXPECT_EQ(recipe_error("packages: [stress]\nfree: 8M\n"),
            "images/debian-redis.yaml:2:7: free: at least 16M: the image's applications write "
            "logs and data");
  auto r = parse_image_recipe("packages: [stress]\nfree: 16M\n", kFile);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->free_mb, 16u);
  EXPECT_EQ(recipe_error("packages: [stress]\nfree: lots\n")
                .rfind("images/debian-redis.yaml:2:7: free: invalid memory size 'lots'", 0),
            0u)
      << recipe_error("packages: [stress]\nfree: lots\n");
}

TEST(ImageRecipe, EmptyCommandsAreRefused) {
  EXPECT_EQ(recipe_error("packages: [stress]\ncommands: []\n"),
            "images/debian-redis.yaml:2:11: commands: must list at least one command, e.g. "
            "[[sed, -i, ...]]");
  EXPECT_EQ(recipe_error("packages: [stress]\ncommands: [[]]\n"),
            "images/debian-redis.yaml:2:12: commands[0]: empty; expected a command: [program, "
            "arg, ...] or 'program arg ...'");
}

TEST(ImageRecipe, EmptyOrMissingFile) {
  EXPECT_EQ(recipe_error(""), "images/debian-redis.yaml:1:1: empty image recipe");
  EXPECT_EQ(recipe_error("# only a comment\n"), "images/debian-redis.yaml:1:1: empty image recipe");
  auto missing = load_image_recipe("/nonexistent/images/x.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("/nonexistent/images/x.yaml: cannot open", 0), 0u)
      << missing.error().message;
}

}  // namespace
}  // namespace foliolab
