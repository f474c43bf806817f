// The subcommand table: what `foliolab --help` (and the man page and completion made from it)
// says of each command.
#include "cli/commands.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace foliolab::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const Command& command(const std::string& name) {
  const auto& table = commands();
  auto it =
      std::find_if(table.begin(), table.end(), [&](const Command& c) { return c.name == name; });
  EXPECT_NE(it, table.end()) << name;
  return *it;
}

TEST(CommandTable, BisectSaysItBisectsSeriesRangesAndKnobSets) {
  const std::string& help = command("bisect").help;
  EXPECT_THAT(help, HasSubstr("patch of a series"));
  EXPECT_THAT(help, HasSubstr("commit of a git range"));
  EXPECT_THAT(help, HasSubstr("knob set"));
  EXPECT_THAT(help, Not(HasSubstr("(of an ordered list)")));
}

TEST(CommandTable, EveryCommandHasANameAndOneLineOfHelp) {
  for (const Command& c : commands()) {
    EXPECT_FALSE(c.name.empty());
    EXPECT_FALSE(c.help.empty()) << c.name;
    EXPECT_EQ(c.help.find('\n'), std::string::npos) << c.name;
  }
}

}  // namespace
}  // namespace foliolab::cli
