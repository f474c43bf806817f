#include "model/project.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Project, TheNearestMarkerFromTheExperimentUpIsTheProject) {
  ScopedTestDir dir("foliolab-project");
  ASSERT_TRUE(write_file_atomic(dir / "proj/foliolab.yaml", "").ok());
  ASSERT_TRUE(write_file_atomic(dir / "proj/experiments/deep/x.yaml", "").ok());
  EXPECT_EQ(project_of(dir / "proj/experiments/deep"), dir / "proj");
  EXPECT_EQ(find_project_marker(dir / "proj"), dir / "proj");
  // Without a marker anywhere up, the experiment's own folder is its project.
  ASSERT_TRUE(write_file_atomic(dir / "loose/x.yaml", "").ok());
  EXPECT_FALSE(find_project_marker(dir / "loose").has_value());
  EXPECT_EQ(project_of(dir / "loose"), dir / "loose");
}

TEST(Project, TheLoaderSetsTheExperimentsProject) {
  ScopedTestDir dir("foliolab-project");
  ASSERT_TRUE(write_file_atomic(dir / "foliolab.yaml", "name: mine\n").ok());
  const std::string file = (dir / "exp/a.yaml").string();
  ASSERT_TRUE(write_file_atomic(file,
                                "name: a\nkernels: [{name: k}]\narchs: [x86_64]\n"
                                "knobs: {base: {enabled: never}}\nworkloads: [{name: fault}]\n")
                  .ok());
  auto exp = load_experiment(file);
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->project, dir.path().string());
}

TEST(Project, TheProjectIsSearchedBeforeFoliolabsData) {
  ScopedTestDir dir("foliolab-project");
  ASSERT_TRUE(write_file_atomic(dir / "proj/patches/mine/series", "").ok());
  ASSERT_TRUE(write_file_atomic(dir / "proj/kernel-config/debug.config", "CONFIG_X=y\n").ok());
  ASSERT_TRUE(write_file_atomic(dir / "data/kernel-config/debug.config", "CONFIG_Y=y\n").ok());
  ASSERT_TRUE(write_file_atomic(dir / "data/kernel-config/base.config", "").ok());
  ASSERT_TRUE(write_file_atomic(dir / "data/patches/theirs/series", "").ok());
  const SearchPath names(dir / "proj", dir / "data");
  auto mine = names.find("patches/mine");
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->path, dir / "proj/patches/mine");
  EXPECT_EQ(mine->origin, "project");
  auto theirs = names.find("patches/theirs");
  ASSERT_TRUE(theirs);
  EXPECT_EQ(theirs->origin, "foliolab");
  // A project's file of the same name shadows foliolab's.
  EXPECT_EQ(names.find("kernel-config/debug.config")->path,
            dir / "proj/kernel-config/debug.config");
  EXPECT_FALSE(names.find("patches/none"));
  EXPECT_EQ(names.searched("patches/none"),
            (dir / "proj/patches/none").string() + " or " + (dir / "data/patches/none").string());
  EXPECT_THAT(names.names("kernel-config", ".config"), ElementsAre("base", "debug"));
  // The same folder twice is one place.
  EXPECT_EQ(SearchPath(dir / "data", dir / "data").places().size(), 1u);
}

TEST(Project, AMarkerWithAnUnknownKeyIsALocatedError) {
  ScopedTestDir dir("foliolab-project");
  ASSERT_TRUE(write_file_atomic(dir / "foliolab.yaml", "# a project\n").ok());
  EXPECT_TRUE(check_project_marker(dir / "foliolab.yaml").ok());
  ASSERT_TRUE(write_file_atomic(dir / "foliolab.yaml", "name: mine\nnmae: x\n").ok());
  auto st = check_project_marker(dir / "foliolab.yaml");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("foliolab.yaml:2:1: nmae: unknown key"));
}

}  // namespace
}  // namespace foliolab
