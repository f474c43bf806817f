// The exit statuses docs/usage.md promises, from the real binary: 2 for bad input, 3 for an
// environment foliolab cannot use, each with an `error:` line naming what and where.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

ProcessResult foliolab(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), cli_binary());
  RealProcessRunner proc;
  return proc.run(
      {.argv = args, .env = env, .capture = true, .timeout = std::chrono::seconds(300)});
}

TEST(ExitCode, ACacheDirectoryThatCannotBeCreatedIsTheEnvironmentNotTheInput) {
  ProcessResult r = foliolab({"image", "--arch", "x86_64"}, {{"FOLIOLAB_CACHE", "/proc/x"}});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: "));
  EXPECT_THAT(r.output, HasSubstr("/proc/x/"));
}

TEST(ExitCode, AMalformedExperimentIsBadInput) {
  const fs::path dir = fresh_test_dir("foliolab-exit");
  ASSERT_TRUE(
      write_file_atomic(dir / "bad.yaml", "name: bad\nkernels:\n  - name: k\n    patchs: x\n")
          .ok());
  ProcessResult r = foliolab({"plan", (dir / "bad.yaml").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("bad.yaml:4:5: kernels[0].patchs: unknown key; did you mean 'patches'?"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
