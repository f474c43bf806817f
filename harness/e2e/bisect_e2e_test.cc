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

fs::path fresh(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("foliolab-e2e-{}-{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The bisection directory under results (one per bisection).
std::optional<fs::path> bisection_dir(const fs::path& results) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(results / "bisect-variants", ec)) {
    if (e.path().filename().string().starts_with("bisect-")) return e.path();
  }
  return std::nullopt;
}

nlohmann::json log_of(const fs::path& dir) {
  auto text = read_file(dir / "bisect.json");
  return text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
}

TEST(E2EBisect, VariantsNameTheSixthOfEightInThreeStepsAndConfirmIt) {
  const fs::path dir = fresh("bisect");
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
  const fs::path dir = fresh("bisect-killed");
  const fs::path results = dir / "results", log = dir / "bisect.log";
  const pid_t cli = spawn_cli(bisect_args(results), log);
  // Kill once the endpoints and a step are logged (no deadline: ctest's timeout bounds it).
  size_t logged = 0;
  while (logged < 3) {
    int status = 0;
    if (::waitpid(cli, &status, WNOHANG) == cli) FAIL() << "ended early: " << *read_file(log);
    if (auto d = bisection_dir(results)) {
      const nlohmann::json j = log_of(*d);
      if (j.is_object() && j.contains("steps")) logged = j["steps"].size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(::kill(cli, SIGKILL), 0);
  EXPECT_EQ(wait_exit(cli), 128 + SIGKILL);
  const fs::path bisection = *bisection_dir(results);
  const nlohmann::json before = log_of(bisection);
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
  const nlohmann::json after = log_of(bisection);
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
