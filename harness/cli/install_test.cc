// `cmake --install` of this build into a fresh prefix, then the installed foliolab as a user
// runs it: from another working directory, finding its data as ../share/foliolab beside it.
// Nothing is built or booted (plan only).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/docs.h"
#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

ProcessResult run_in(const fs::path& cwd, std::vector<std::string> argv) {
  RealProcessRunner proc;
  // FOLIOLAB_ROOT empty: the installed binary must find its data by itself.
  return proc.run({.argv = std::move(argv),
                   .cwd = cwd,
                   .env = {{"FOLIOLAB_ROOT", ""}},
                   .capture = true,
                   .timeout = std::chrono::seconds(120)});
}

std::string text_of(const fs::path& p) {
  auto t = read_file(p);
  EXPECT_TRUE(t.ok()) << p;
  return t.ok() ? *t : "";
}

TEST(Install, TheInstalledBinaryFindsItsDataAndDocsNameEveryCommand) {
  ScopedTestDir tmp("foliolab-install");
  const fs::path prefix = tmp.path() / "prefix", elsewhere = tmp.path() / "elsewhere";
  fs::create_directories(elsewhere);
  const fs::path build_dir = fs::path(cli_binary()).parent_path();
  ProcessResult inst =
      run_in(elsewhere, {"cmake", "--install", build_dir.string(), "--prefix", prefix.string()});
  ASSERT_EQ(inst.exit_code, 0) << inst.output;
  const std::string exe = (prefix / "bin" / "foliolab").string();
  ProcessResult version = run_in(elsewhere, {exe, "--version"});
  EXPECT_EQ(version.exit_code, 0) << version.output;
  EXPECT_THAT(version.output, HasSubstr(cli::version_string()));
  const fs::path quickstart = prefix / "share" / "foliolab" / "experiments" / "quickstart.yaml";
  ProcessResult plan = run_in(elsewhere, {exe, "plan", quickstart.string()});
  EXPECT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_THAT(plan.output, HasSubstr("x86_64.6.12-mthp-vmstat."));
  EXPECT_FALSE(fs::exists(elsewhere / "results"));  // plan creates nothing
  const std::string man = text_of(prefix / "share" / "man" / "man1" / "foliolab.1");
  const std::string completion =
      text_of(prefix / "share" / "bash-completion" / "completions" / "foliolab");
  for (const cli::Command& c : cli::commands()) {
    EXPECT_THAT(man, HasSubstr(".B " + cli::roff(c.name) + "\n")) << c.name;
    EXPECT_THAT(completion, HasSubstr(" " + c.name + ") opts=")) << c.name;
    EXPECT_TRUE(fs::is_regular_file(prefix / "share/man/man1" / ("foliolab-" + c.name + ".1")))
        << c.name;
  }
  // The schemas an editor is pointed at (foliolab init's first line), as `foliolab schema` prints.
  ProcessResult schema = run_in(elsewhere, {exe, "schema", "experiment"});
  EXPECT_EQ(schema.exit_code, 0);
  EXPECT_EQ(text_of(prefix / "share/foliolab/schema/experiment.json"), schema.output);
}

}  // namespace
}  // namespace foliolab
