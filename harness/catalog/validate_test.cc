#include "catalog/validate.h"
#include "util/build_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "model/loader.h"
#include "testing/fake_kernel_tree.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A throwaway project tree: kernel-config/{numa,debug}.config, patches/mthp-vmstat/series,
// patches/empty/ (no series file), src/linux/ and src/linux.tar.xz.
class ValidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.put("kernel-config/numa.config", "");
    tree_.put("kernel-config/debug.config", "");
    tree_.put("patches/mthp-vmstat/series", "");
    fs::create_directories(tree_ / "patches/empty");
    fs::create_directories(tree_ / "experiments/src/linux");
    tree_.put("experiments/src/linux.tar.xz", "");
    tree_.put("experiments/src/notes.txt", "");
  }

  // Parses `kernels_block` (the lines after "kernels:") as if from experiments/x.yaml.
  Result<void> validate(const std::string& kernels_block) {
    const std::string text = "name: v\nkernels:\n" + kernels_block +
                             "archs: [x86_64]\nknobs: {a: {}}\nworkloads: [{name: fault}]\n";
    auto exp = parse_experiment(text, (tree_ / "experiments/x.yaml").string());
    EXPECT_TRUE(exp.ok()) << exp.error().message;
    if (!exp.ok()) return exp.error();
    return validate_project(*exp, tree_.path());
  }

  std::string file() const { return (tree_ / "experiments/x.yaml").string(); }

  FakeKernelTree tree_{"validate_test"};
};

TEST_F(ValidateTest, AcceptsExistingFiles) {
  const Result<void> s = validate(R"(  - name: a
    config: [numa, debug]
    patches: mthp-vmstat
  - name: b
    source: src/linux
  - name: c
    source: src/linux.tar.xz
)");
  EXPECT_TRUE(s.ok()) << s.error().message;
}

TEST_F(ValidateTest, MissingFragmentHasLocationAndSuggestion) {
  const Result<void> s = validate("  - name: a\n    config: [numa, debg]\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr(file() + ":4:20: kernels[0].config[1]: config "
                                                    "fragment 'debg' not found"));
  EXPECT_THAT(s.error().message, HasSubstr("did you mean 'debug'?"));
}

TEST_F(ValidateTest, MissingFragmentListsAvailable) {
  const Result<void> s = validate("  - name: a\n    config: [zzzzzz]\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("available: debug numa"));
}

TEST_F(ValidateTest, MissingSeriesFolder) {
  const Result<void> s = validate("  - name: a\n    patches: mthp-vmstt\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message,
              HasSubstr(file() + ":4:14: kernels[0].patches: patch series 'mthp-vmstt' not found"));
  EXPECT_THAT(s.error().message, HasSubstr("did you mean 'mthp-vmstat'?"));
}

TEST_F(ValidateTest, SeriesFolderWithoutSeriesFile) {
  const Result<void> s = validate("  - name: a\n    patches: empty\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr(file() + ":4:14: kernels[0].patches: patch series "
                                                    "folder "));
  EXPECT_THAT(s.error().message, HasSubstr("has no 'series' file"));
}

TEST_F(ValidateTest, SourcePathMustExist) {
  const Result<void> s = validate("  - name: a\n    source: src/missing\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr(file() + ":4:13: kernels[0].source: kernel source "));
  EXPECT_THAT(s.error().message, HasSubstr("does not exist"));
}

TEST_F(ValidateTest, SourceFileMustBeATarball) {
  const Result<void> s = validate("  - name: a\n    source: src/notes.txt\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("is neither a directory nor a .tar"));
}

TEST_F(ValidateTest, AbsoluteSourcePath) {
  const Result<void> s =
      validate("  - name: a\n    source: " + (tree_ / "experiments/src/linux").string() + "\n");
  EXPECT_TRUE(s.ok()) << s.error().message;
}

TEST_F(ValidateTest, ReportsEveryProblemOnItsOwnLine) {
  const Result<void> s = validate(R"(  - name: a
    config: [nope]
  - name: b
    patches: nope
    source: nope
)");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 2) << m;
  EXPECT_THAT(m, HasSubstr(":4:14: kernels[0].config[0]:"));
  EXPECT_THAT(m, HasSubstr(":6:14: kernels[1].patches:"));
  EXPECT_THAT(m, HasSubstr(":7:13: kernels[1].source:"));
}

TEST_F(ValidateTest, QuickstartExampleValidatesAgainstRepository) {
  auto exp = load_experiment(std::string(foliolab::source_dir()) + "/experiments/quickstart.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const Result<void> s = validate_project(*exp, foliolab::source_dir());
  EXPECT_TRUE(s.ok()) << s.error().message;
}

TEST_F(ValidateTest, KnobValuesAreCheckedAgainstTheKernel) {
  auto exp = parse_experiment(R"(name: v
kernels:
  - name: a
    config: [numa]
archs: [x86_64]
knobs:
  "64K": {hugepages-64kB/enabled: alway}
workloads: [{name: fault}]
)",
                              file());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const Result<void> s = validate_project(*exp, tree_.path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            file() +
                ":7:35: knobs[\"64K\"].hugepages-64kB/enabled: 'alway' is not offered by "
                "Linux 6.12 (always inherit madvise never); did you mean 'always'? (kernel a "
                "on x86_64)");
}

// machine.image (issue 20): recipes under <root>/images/, a backend that can attach the disk,
// and the Debian packages of the workloads that run Debian's programs.
class ValidateImageTest : public ValidateTest {
 protected:
  void SetUp() override {
    ValidateTest::SetUp();
    tree_.put("images/debian-redis.yaml",
              "packages: [redis-server, redis-tools, stress, stress-ng]\n");
    tree_.put("images/debian-base.yaml", "packages: [stress, stress-ng]\n");
    tree_.put("images/bad.yaml", "pakages: [stress]\n");
  }
  // An experiment whose `machine:` line is line 5 and `workloads:` line 7.
  Result<void> validate_image(const std::string& machine, const std::string& workloads) {
    const std::string text =
        "name: v\nkernels:\n  - name: a\narchs: [x86_64]\nmachine: " + machine +
        "\nknobs: {a: {}}\nworkloads: " + workloads + "\n";
    auto exp = parse_experiment(text, file());
    EXPECT_TRUE(exp.ok()) << exp.error().message;
    if (!exp.ok()) return exp.error();
    return validate_project(*exp, tree_.path());
  }
};

TEST_F(ValidateImageTest, AnImageThatInstallsTheWorkloadsPackagesPasses) {
  Result<void> s = validate_image("{image: debian-redis}",
                                  "[{name: redis}, {name: memcg-stress}, {name: fault}]");
  EXPECT_TRUE(s.ok()) << s.error().message;
  s = validate_image("{image: debian-base}", "[{name: memcg-stress}]");
  EXPECT_TRUE(s.ok()) << s.error().message;
  s = validate_image("{image: initramfs}", "[{name: fault}]");  // the default, said aloud
  EXPECT_TRUE(s.ok()) << s.error().message;
}

TEST_F(ValidateImageTest, UnknownRecipeSuggestsTheClosestAndListsThem) {
  const Result<void> s = validate_image("{image: debian-rdis}", "[{name: fault}]");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, file() + ":5:18: machine.image: no image recipe 'debian-rdis' (no " +
                                   (tree_ / "experiments/images/debian-rdis.yaml").string() +
                                   " or " + (tree_ / "images/debian-rdis.yaml").string() +
                                   "); did you mean 'debian-redis'? (recipes: bad, debian-base, "
                                   "debian-redis)");
}

TEST_F(ValidateImageTest, ARecipesOwnErrorNamesItsFile) {
  const Result<void> s = validate_image("{image: bad}", "[{name: fault}]");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, (tree_ / "images/bad.yaml").string() +
                                   ":1:1: pakages: unknown key; did you mean 'packages'?");
}

TEST_F(ValidateImageTest, OnlyTheQemuBackendAttachesARootDisk) {
  const Result<void> s =
      validate_image("{image: debian-redis, backend: libvirt}", "[{name: fault}]");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message,
              HasSubstr(file() + ":5:18: machine.image: backend libvirt cannot attach a root disk "
                                 "yet; Debian images boot with backend qemu"));
}

TEST_F(ValidateImageTest, AWorkloadWithPackagesNeedsAnImage) {
  const Result<void> s =
      validate_image("{cpus: 1}", "[{name: fault}, {name: redis}, {name: memcg-stress}]");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1) << m;
  EXPECT_THAT(m, HasSubstr(file() + ":7:35: workloads[1]: redis runs Debian's redis-server, "
                                    "redis-tools: set machine.image to a recipe that installs "
                                    "them (images/*.yaml)"));
  EXPECT_THAT(m, HasSubstr(file() + ":7:50: workloads[2]: memcg-stress runs Debian's stress, "
                                    "stress-ng: set machine.image to a recipe that installs "
                                    "them (images/*.yaml)"));
  const Result<void> initramfs = validate_image("{image: initramfs}", "[{name: postgres}]");
  ASSERT_FALSE(initramfs.ok());
  EXPECT_THAT(initramfs.error().message,
              HasSubstr("workloads[0]: postgres runs Debian's postgresql-15: set machine.image to "
                        "a recipe that installs it"));
}

TEST_F(ValidateImageTest, AnImageThatLacksAWorkloadsPackagesNamesThem) {
  const Result<void> s = validate_image("{image: debian-base}", "[{name: redis}]");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            file() +
                ":7:20: workloads[0]: redis needs Debian package(s) redis-server, redis-tools "
                "that image debian-base does not install (add them to " +
                (tree_ / "images/debian-base.yaml").string() + "'s packages)");
}

// Each shipped recipe installs what the shipped workloads that boot it need.
TEST_F(ValidateImageTest, ShippedRecipeServesTheShippedWorkloads) {
  const auto shipped = [](const std::string& image, const std::string& workloads) -> Result<void> {
    auto exp = parse_experiment(
        "name: v\nkernels: [{name: a}]\narchs: [x86_64, arm64]\n"
        "machine: {image: " +
            image + "}\nknobs: {a: {}}\nworkloads: " + workloads + "\n",
        std::string(foliolab::source_dir()) + "/experiments/x.yaml");
    if (!exp.ok()) return exp.error();
    return validate_project(*exp, foliolab::source_dir());
  };
  Result<void> s = shipped("debian-redis", "[{name: redis}, {name: memcg-stress}]");
  EXPECT_TRUE(s.ok()) << s.error().message;
  s = shipped("debian-kbuild", "[{name: kbuild}]");
  EXPECT_TRUE(s.ok()) << s.error().message;
}

}  // namespace
}  // namespace foliolab
