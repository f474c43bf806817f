// The man page and bash completion made from the subcommand table, and where the binary finds
// its data (installed, source tree, FOLIOLAB_ROOT).
#include "cli/docs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "testing/temp_dir.h"

namespace foliolab::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(Docs, TheManPageNamesEveryCommandWithItsHelpAndFlags) {
  auto cl = make_command_line();
  const std::string man = man_page(*cl.app, version_string());
  EXPECT_EQ(man.rfind(".TH FOLIOLAB 1 ", 0), 0u) << man.substr(0, 80);
  for (const Command& c : commands())
    EXPECT_THAT(man, HasSubstr(".B " + roff(c.name) + "\n")) << c.name;
  EXPECT_THAT(man, HasSubstr("\\-\\-arch"));  // a flag of plan, roff-escaped
  EXPECT_THAT(man, HasSubstr("FOLIOLAB_ROOT"));
}

TEST(Docs, TheCompletionOffersEveryCommandAndItsFlags) {
  auto cl = make_command_line();
  const std::string bash = bash_completion(*cl.app);
  for (const Command& c : commands()) EXPECT_THAT(bash, HasSubstr("    " + c.name + ") opts="));
  EXPECT_THAT(bash, HasSubstr("plan) opts=\"--arch"));
  EXPECT_THAT(bash, HasSubstr("complete -o filenames -F _foliolab foliolab"));
}

TEST(Docs, VersionNamesVersionRevisionAndBuildType) {
  EXPECT_THAT(version_string(), ::testing::MatchesRegex("foliolab [0-9]+\\.[0-9]+\\.[0-9]+ "
                                                        "\\(revision [^,]+, [A-Za-z]+\\)"));
}

TEST(DataRoot, InstalledBesideTheBinaryElseTheSourceTreeAndTheEnvironmentOverrides) {
  const fs::path prefix = fresh_test_dir("foliolab-data-root");
  fs::create_directories(prefix / "bin");
  const fs::path exe = prefix / "bin" / "foliolab";
  DataRoot r = find_data_root(nullptr, exe, "/src/foliolab");
  EXPECT_EQ(r.kind, DataRootKind::kSourceTree);  // no share/foliolab: run from a build dir
  EXPECT_EQ(r.path, "/src/foliolab");
  fs::create_directories(prefix / "share" / "foliolab");
  r = find_data_root("", exe, "/src/foliolab");
  EXPECT_EQ(r.kind, DataRootKind::kInstalled);
  EXPECT_EQ(r.path, prefix / "share" / "foliolab");
  r = find_data_root("/data", exe, "/src/foliolab");
  EXPECT_EQ(r.kind, DataRootKind::kEnv);
  EXPECT_EQ(r.path, "/data");
  fs::remove_all(prefix);
}

}  // namespace
}  // namespace foliolab::cli
