// `foliolab init` and projects as a user meets them: the real binary makes a project, and from
// inside it `plan` finds a series of the project's own and one of foliolab's.
#include "cli/init_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/process.h"

namespace foliolab::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// The "kernels: ..." line of a plan (which kernels, their build ids).
std::string kernels_line(const std::string& plan) {
  const size_t at = plan.find("\nkernels: ");
  if (at == std::string::npos) return "";
  return plan.substr(at + 1, plan.find('\n', at + 1) - at - 1);
}

ProcessResult foliolab(const std::vector<std::string>& args, const fs::path& cwd) {
  RealProcessRunner proc;
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return proc.run({.argv = argv,
                   .cwd = cwd,
                   .env = {{"FOLIOLAB_ROOT", ""}},
                   .capture = true,
                   .timeout = std::chrono::seconds(60)});
}

TEST(Init, AProjectHoldsTheMarkerAnExperimentAndEmptyFolders) {
  auto files = project_files(source_dir(), "mine");
  ASSERT_TRUE(files.ok()) << files.error().message;
  std::vector<std::string> paths;
  for (const auto& [rel, text] : *files) paths.push_back(rel.string());
  EXPECT_THAT(paths, ::testing::ElementsAre("foliolab.yaml", "experiments/quickstart.yaml",
                                            "patches/README", "kernel-config/README"));
  EXPECT_THAT(files->front().second, HasSubstr("name: mine\n"));
}

TEST(Init, InitOverwritesNothing) {
  ScopedTestDir dir("foliolab-init");
  ASSERT_TRUE(write_file_atomic(dir / "p/experiments/quickstart.yaml", "mine\n").ok());
  auto r = init_project(dir / "p", source_dir());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("quickstart.yaml exists"));
  EXPECT_EQ(*read_file(dir / "p/experiments/quickstart.yaml"), "mine\n");
  EXPECT_FALSE(path_exists(dir / "p/foliolab.yaml"));
}

TEST(Init, PlanInsideANewProjectFindsItsOwnSeriesFirst) {
  ScopedTestDir dir("foliolab-init");
  auto init = foliolab({"init", "myproj"}, dir.path());
  ASSERT_EQ(init.exit_code, 0) << init.output;
  EXPECT_THAT(init.output, HasSubstr("next: cd myproj"));
  const fs::path proj = dir / "myproj";
  auto plan = foliolab({"plan", "experiments/quickstart.yaml"}, proj);
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_THAT(plan.output, ContainsRegex("series +mthp-vmstat +foliolab "));
  const std::string first = plan.output;
  ASSERT_THAT(kernels_line(first), HasSubstr("6.12-mthp-vmstat x86_64"));
  // A series of the project's own, named by the experiment.
  fs::copy(fs::path(source_dir()) / "patches/mthp-vmstat", proj / "patches/mine",
           fs::copy_options::recursive);
  auto text = read_file(proj / "experiments/quickstart.yaml");
  ASSERT_TRUE(text.ok());
  std::string edited = *text;
  const std::string from = "patches: mthp-vmstat";
  ASSERT_NE(edited.find(from), std::string::npos);
  edited.replace(edited.find(from), from.size(), "patches: mine");
  ASSERT_TRUE(write_file_atomic(proj / "experiments/quickstart.yaml", edited).ok());
  plan = foliolab({"plan", "experiments/quickstart.yaml"}, proj);
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_THAT(plan.output,
              ContainsRegex("series +mine +project +" + (proj / "patches/mine").string()));
  // The same patches under another name are the same kernel: the cache goes by content.
  EXPECT_EQ(kernels_line(plan.output), kernels_line(first));
  // A name neither place has: both are named.
  edited.replace(edited.find("patches: mine"), 13, "patches: nosuch");
  ASSERT_TRUE(write_file_atomic(proj / "experiments/quickstart.yaml", edited).ok());
  plan = foliolab({"plan", "experiments/quickstart.yaml"}, proj);
  EXPECT_EQ(plan.exit_code, 2);
  EXPECT_THAT(plan.output, HasSubstr("patch series 'nosuch' not found (no folder or mbox " +
                                     (proj / "patches/nosuch").string() + " or "));
}

}  // namespace
}  // namespace foliolab::cli
