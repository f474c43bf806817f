// The shared process fake: first matching script answers, every spec is recorded, the rest runs.
#include "testing/fake_process_runner.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

TEST(FakeProcessRunner, FirstMatchingScriptAnswersAndEverySpecIsRecorded) {
  FakeProcessRunner fake;
  fake.version("tool 1.0")
      .on(FakeProcessRunner::program("make"),
          [](const ProcessSpec& s) { return FakeProcessRunner::ok("made " + s.argv.back()); })
      .on(FakeProcessRunner::program_suffix("gcc"),
          [](const ProcessSpec&) { return FakeProcessRunner::ok("never: make matched first"); });
  EXPECT_EQ(fake.run({.argv = {"aarch64-linux-gnu-gcc", "--version"}}).output, "tool 1.0\n");
  EXPECT_EQ(fake.run({.argv = {"make", "O=/o", "vmlinux"}}).output, "made vmlinux");
  ProcessResult real = fake.run({.argv = {"true"}});  // no script: runs for real
  EXPECT_TRUE(real.ok());
  ASSERT_EQ(fake.specs.size(), 3u);
  EXPECT_EQ(fake.specs[2].argv, std::vector<std::string>{"true"});
  EXPECT_EQ(fake.played.size(), 2u);
  EXPECT_EQ(fake.count("make"), 1u);  // played or run, each spec counts for its program
  EXPECT_EQ(fake.count("true"), 1u);
  EXPECT_EQ(fake.count("gcc"), 0u);
  EXPECT_EQ(arg_value(fake.specs[1].argv, "O="), "/o");
  EXPECT_EQ(arg_value(fake.specs[1].argv, "ARCH="), "");
}

}  // namespace
}  // namespace foliolab
