// `foliolab bisect --series` end to end (issue 19): real kernels built from linux-source-6.12
// with the prefixes of a five-patch series (patches/thp64k-*, experiments/examples/
// bisect-series.yaml), real TCG guests. The series' culprit enables 64 KiB anonymous mTHP by
// default, which cuts the fault workload's count 16x; the other four patches change comments
// and documentation only. Every prefix shares the config of the other e2e kernels' tree (one O=
// directory, ccache), so a step rebuilds what its patch touches.
//
// - x86_64 and arm64: patch 3 of 5 is named in at most 3 steps after the endpoints and
//   confirmed (against patch 2 in fresh boots, and by the series without patch 3);
// - x86_64: killed with SIGKILL after a step, `bisect resume` ends with the same answer, measures
//   no logged step again and rebuilds no kernel it had built;
// - x86_64: the culprit first and last; a series with no effect "does not reproduce", exit 1.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
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

const char* const kSubject = "mm: huge_memory: enable 64K anonymous mTHP by default on 4K pages";

std::vector<std::string> bisect_args(const fs::path& results, const std::string& series,
                                     const std::string& arch, const std::string& confirm) {
  return {"bisect",
          (fs::path(source_dir()) / "experiments/examples/bisect-series.yaml").string(),
          "--series",
          series,
          "--metric",
          "faults",
          "--where",
          "arch=" + arch,
          "--confirm",
          confirm,
          "--results",
          results.string(),
          "-j",
          "1",
          "-q"};
}

fs::path fresh(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("foliolab-e2e-{}-{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::optional<fs::path> bisection_dir(const fs::path& results) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(results / "bisect-series", ec)) {
    if (e.path().filename().string().starts_with("bisect-")) return e.path();
  }
  return std::nullopt;
}

nlohmann::json json_of(const fs::path& file) {
  auto text = read_file(file);
  return text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
}

// Every run record of a session: build id -> whether the kernel came from the cache.
std::map<std::string, bool> kernels_of(const fs::path& session) {
  std::map<std::string, bool> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(session, ec)) {
    if (e.path().filename() != "run.json") continue;
    const nlohmann::json j = json_of(e.path());
    if (!j.contains("provenance")) continue;
    const auto& k = j["provenance"]["kernel"];
    out[k["build_id"].get<std::string>()] = k["cache_hit"].get<bool>();
  }
  return out;
}

struct Bisected {
  int exit = -1;
  std::string out;
  nlohmann::json log;
};

Bisected bisect(const fs::path& dir, const std::string& series, const std::string& arch,
                const std::string& confirm = "2") {
  const fs::path results = dir / "results", log = dir / (series + "-" + arch + ".log");
  Bisected b;
  b.exit = wait_exit(spawn_cli(bisect_args(results, series, arch, confirm), log));
  b.out = *read_file(log);
  if (auto d = bisection_dir(results)) b.log = json_of(*d / "bisect.json");
  return b;
}

void expect_third_of_five(const Bisected& b) {
  EXPECT_EQ(b.exit, 0) << b.out;
  EXPECT_NE(b.out.find(fmt::format("culprit patch 3 of 5 ({}) (good → bad), confirmed", kSubject)),
            std::string::npos)
      << b.out;
  ASSERT_TRUE(b.log.contains("steps")) << b.out;
  EXPECT_LE(b.log["steps"].size(), 2u + 3u) << b.out;  // the endpoints, then <= 3 steps
  // 16 MiB: 4096 faults of 4 KiB pages before, 256 of 64 KiB folios after; and back to 4096
  // without patch 3.
  EXPECT_NE(b.out.find("n=4: 4096 4096 4096 4096 | n=4: 256 256 256 256"), std::string::npos)
      << b.out;
  EXPECT_NE(b.out.find("without patch 3: n=2: 4096 4096"), std::string::npos) << b.out;
}

// First, so that its kernels are built by its own killed call (ctest keeps this order).
TEST(E2EBisectSeries, KilledAfterAStepResumesToTheSameAnswerRebuildingNothing) {
  const fs::path dir = fresh("bisect-series-killed");
  const fs::path results = dir / "results", log = dir / "bisect.log";
  const pid_t cli = spawn_cli(bisect_args(results, "thp64k-demo", "x86_64", "1"), log);
  size_t logged = 0;  // no deadline: ctest's timeout bounds it
  while (logged < 3) {  // the endpoints and one step
    int status = 0;
    if (::waitpid(cli, &status, WNOHANG) == cli) FAIL() << "ended early: " << *read_file(log);
    if (auto d = bisection_dir(results)) {
      const nlohmann::json j = json_of(*d / "bisect.json");
      if (j.is_object() && j.contains("steps")) logged = j["steps"].size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(::kill(cli, SIGKILL), 0);
  EXPECT_EQ(wait_exit(cli), 128 + SIGKILL);
  const fs::path bisection = *bisection_dir(results);
  std::set<std::string> built;  // the kernels the killed call measured with
  const nlohmann::json before = json_of(bisection / "bisect.json");
  const size_t kept = before["steps"].size();
  for (const auto& s : before["steps"]) {
    for (const auto& [id, hit] : kernels_of(s["session"].get<std::string>())) built.insert(id);
  }
  const fs::path log2 = dir / "resume.log";
  const pid_t resumed = spawn_cli(
      {"bisect", "resume", bisection.string(), "--results", results.string(), "-j", "1", "-q"},
      log2);
  ASSERT_EQ(wait_exit(resumed), 0) << *read_file(log2);
  const std::string out = *read_file(log2);
  EXPECT_NE(out.find("culprit patch 3 of 5"), std::string::npos) << out;
  const nlohmann::json after = json_of(bisection / "bisect.json");
  std::set<size_t> candidates;
  std::vector<std::string> sessions;  // what the resumed call measured
  for (size_t i = 0; i < after["steps"].size(); ++i) {
    const auto& s = after["steps"][i];
    EXPECT_TRUE(candidates.insert(s["candidate"].get<size_t>()).second)
        << "candidate " << s["candidate"] << " measured twice";
    if (i >= kept) sessions.push_back(s["session"].get<std::string>());
  }
  for (const auto& c : after["confirmations"]) {
    for (const auto& session : c["sessions"]) sessions.push_back(session.get<std::string>());
  }
  // A kernel the killed call had built came from the cache whenever the resumed call booted it.
  size_t reused = 0;
  for (const std::string& session : sessions) {
    for (const auto& [id, hit] : kernels_of(session)) {
      if (!built.count(id)) continue;
      ++reused;
      EXPECT_TRUE(hit) << "kernel " << id << " built again";
    }
  }
  EXPECT_GT(reused, 0u);  // the confirmation boots patch 2 or 3, one of which a step built
  fs::remove_all(dir);
}

TEST(E2EBisectSeries, TheThirdOfFivePatchesIsNamedAndConfirmedOnX86_64) {
  const fs::path dir = fresh("bisect-series-x86");
  expect_third_of_five(bisect(dir, "thp64k-demo", "x86_64"));
  fs::remove_all(dir);
}

TEST(E2EBisectSeries, TheThirdOfFivePatchesIsNamedAndConfirmedOnArm64) {
  const fs::path dir = fresh("bisect-series-arm64");
  expect_third_of_five(bisect(dir, "thp64k-demo", "arm64"));
  fs::remove_all(dir);
}

TEST(E2EBisectSeries, TheCulpritFirstAndLastIsNamedAndASeriesWithoutEffectDoesNotReproduce) {
  const fs::path dir = fresh("bisect-series-ends");
  const Bisected first = bisect(dir / "first", "thp64k-first", "x86_64", "1");
  EXPECT_EQ(first.exit, 0) << first.out;
  EXPECT_NE(first.out.find(fmt::format("culprit patch 1 of 5 ({}) (good → bad), confirmed",
                                       kSubject)),
            std::string::npos)
      << first.out;
  const Bisected last = bisect(dir / "last", "thp64k-last", "x86_64", "1");
  EXPECT_EQ(last.exit, 0) << last.out;
  EXPECT_NE(last.out.find(fmt::format("culprit patch 5 of 5 ({}) (good → bad), confirmed",
                                      kSubject)),
            std::string::npos)
      << last.out;
  const Bisected none = bisect(dir / "none", "thp64k-none", "x86_64", "1");
  EXPECT_EQ(none.exit, 1) << none.out;
  EXPECT_NE(none.out.find("does not reproduce"), std::string::npos) << none.out;
  EXPECT_EQ(none.log["steps"].size(), 2u) << none.out;  // the endpoints only
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
