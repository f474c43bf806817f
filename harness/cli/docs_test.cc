// The man pages and bash completion made from the subcommand table, `foliolab help`, and where
// the binary finds its data (installed, source tree, FOLIOLAB_ROOT).
#include "cli/docs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

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
  // `foliolab help <TAB>` offers the subcommands, `foliolab schema <TAB>` the file kinds.
  EXPECT_THAT(bash, HasSubstr("help) COMPREPLY=($(compgen -W \"plan run "));
  EXPECT_THAT(bash, HasSubstr("schema) COMPREPLY=($(compgen -W \"experiment recipe known-issues "
                              "project\""));
}

TEST(Docs, EverySubcommandHasItsOwnManPage) {
  auto cl = make_command_line();
  ScopedTestDir dir("foliolab-man-pages");
  ASSERT_TRUE(write_man_pages(*cl.app, version_string(), dir.path()).ok());
  const std::string index = *read_file(dir / "foliolab.1");
  for (const CLI::App* sub : cl.subs) {
    const std::string page = man_page_name(*sub);
    auto text = read_file(dir / (page + ".1"));
    ASSERT_TRUE(text.ok()) << page;
    std::string upper = page;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(text->rfind(".TH " + roff(upper) + " 1 ", 0), 0u) << page;
    EXPECT_THAT(*text, HasSubstr(roff(sub->get_description()))) << page;
    EXPECT_THAT(index, HasSubstr(roff(page) + "(1)"));  // SEE ALSO
  }
  const std::string run = *read_file(dir / "foliolab-run.1");
  EXPECT_THAT(run, HasSubstr(".SH OPTIONS\n"));
  EXPECT_THAT(run, HasSubstr(".I experiment\n"));
  EXPECT_THAT(*read_file(dir / "foliolab-cache.1"), HasSubstr(".SS gc\n"));  // its own commands
}

// `foliolab ARGS...`, stdout and stderr together.
ProcessResult foliolab_says(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  RealProcessRunner proc;
  return proc.run({.argv = argv, .capture = true, .timeout = std::chrono::seconds(60)});
}

TEST(Help, HelpOfASubcommandIsWhatItsHelpFlagPrints) {
  for (const std::string name : {"run", "cache", "help", "schema"}) {
    const ProcessResult help = foliolab_says({"help", name});
    const ProcessResult flag = foliolab_says({name, "--help"});
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_EQ(flag.exit_code, 0) << flag.output;
    EXPECT_EQ(help.output, flag.output) << name;
  }
  EXPECT_THAT(foliolab_says({"help", "run"}).output, HasSubstr("run [OPTIONS] experiment"));
  const ProcessResult top = foliolab_says({"help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_EQ(top.output, foliolab_says({"--help"}).output);
}

TEST(Help, HelpOfAnUnknownSubcommandFailsWithExit2) {
  const ProcessResult r = foliolab_says({"help", "rn"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("error: foliolab help: unknown subcommand 'rn'; did you mean "
                                  "'run'?"));
  EXPECT_THAT(r.output, HasSubstr("(subcommands: plan, run, "));
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
