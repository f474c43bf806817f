// `foliolab bisect --variants` end to end (issue 19): real x86_64 guests of the quickstart kernel
// (cached in ~/.cache/foliolab), experiments/examples/bisect-variants.yaml's eight knob sets,
// 64 KiB mTHP on from the 6th. The bisection must name the 6th in 3 steps after the endpoints
// and confirm it; killed with SIGKILL mid-way, `bisect resume` must end with the same answer
// without measuring again any step it had logged.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "testing/bisect_dirs.h"
#include "testing/cli_binary.h"
#include "util/build_info.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> bisect_args(const fs::path& results) {
  return {
      "bisect",     (fs::path(source_dir()) / "experiments/examples/bisect-variants.yaml").string(),
      "--variants", "v1,v2,v3,v4,v5,v6,v7,v8",
      "--metric",   "faults",
      "--where",    "arch=x86_64",
      "--confirm",  "2",
      "--results",  results.string(),
      "-j",         "1",
      "-q"};
}

TEST(E2EBisect, VariantsNameTheSixthOfEightInThreeStepsAndConfirmIt) {
  const fs::path dir = fresh_e2e_dir("bisect");
  const fs::path log = dir / "bisect.log";
  const pid_t cli = spawn_cli(bisect_args(dir / "results"), log);
  ASSERT_EQ(wait_exit(cli), 0) << *read_file(log);
  const std::string out = *read_file(log);
  EXPECT_NE(out.find("culprit knob set 'v6' (6 of 8) (good → bad), confirmed"), std::string::npos)
      << out;
  EXPECT_NE(out.find("[step 3/3]"), std::string::npos) << out;
  EXPECT_EQ(out.find("[step 4/"), std::string::npos) << out;
  EXPECT_NE(out.find("knob set 'v5' (5 of 8) → knob set 'v6' (6 of 8): n=4: 4096 4096 4096 4096 | "
                     "n=4: 256 256 256 256: confirmed"),
            std::string::npos)
      << out;
  fs::remove_all(dir);
}

TEST(E2EBisect, KilledMidWayResumesToTheSameAnswerMeasuringNothingTwice) {
  const fs::path dir = fresh_e2e_dir("bisect-killed");
  const fs::path results = dir / "results", log = dir / "bisect.log";
  const pid_t cli = spawn_cli(bisect_args(results), log);
  // Killed once the endpoints and a step are logged.
  const std::optional<fs::path> killed = kill_after_steps(cli, results, "bisect-variants", 3);
  ASSERT_TRUE(killed) << "ended before it was killed: " << *read_file(log);
  const fs::path bisection = *killed;
  const nlohmann::json before = json_file(bisection / "bisect.json");
  ASSERT_TRUE(before.is_object());
  const size_t kept = before["steps"].size();

  const fs::path log2 = dir / "resume.log";
  const pid_t resumed = spawn_cli(
      {"bisect", "resume", bisection.string(), "--results", results.string(), "-j", "1", "-q"},
      log2);
  ASSERT_EQ(wait_exit(resumed), 0) << *read_file(log2);
  const std::string out = *read_file(log2);
  EXPECT_NE(out.find("culprit knob set 'v6' (6 of 8) (good → bad), confirmed"), std::string::npos)
      << out;
  const nlohmann::json after = json_file(bisection / "bisect.json");
  std::set<size_t> candidates;
  for (const auto& s : after["steps"]) {
    EXPECT_TRUE(candidates.insert(s["candidate"].get<size_t>()).second)
        << "candidate " << s["candidate"] << " measured twice";
  }
  EXPECT_EQ(after["steps"].size(), 5u);  // the endpoints and 3 steps, in the two calls together
  // The resumed call printed only the steps it measured itself.
  size_t printed = 0;
  for (const char* mark : {"[step ", "[end] "}) {
    for (size_t at = 0; (at = out.find(mark, at)) != std::string::npos; ++at) ++printed;
  }
  EXPECT_EQ(printed, 5 - kept) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
