// `foliolab bisect --series` end to end (issue 19): real kernels built from linux-source-6.12
// with the prefixes of a five-patch series (patches/thp64k-*, experiments/examples/
// bisect-series.yaml), real TCG guests, both arches. The culprit enables 64 KiB anonymous mTHP by
// default, which cuts the fault workload's count 16x; the other four change comments and
// documentation only. Each folder starts with the quickstart's two mthp-vmstat patches, known
// good (--good-patches 2): the good end is the quickstart's kernel, and every prefix shares its
// tree and config (one O= directory, ccache), so a step rebuilds what its patch touches and no
// test rebuilds the tree without mthp-vmstat's vm_event_item.h (most of the kernel). Patch
// numbers are the folder's: the five are patches 3-7 of 7, the culprit third is patch 5.
//
// x86_64, culprit third: killed with SIGKILL after the ends and one step, `bisect resume` must
// name patch 5 in at most 3 steps after the ends, confirm it (against patch 4 in a fresh boot,
// and by the series without patch 5), measure no logged step again and rebuild no kernel the
// killed call had built. arm64, culprit third, in one call. Both arches: the culprit first
// (thp64k-first) and last (thp64k-last) are named and confirmed; the four harmless patches alone
// (thp64k-none) end "does not reproduce", exit 1.
//
// A nightly whose series grew (x86_64, a project root of its own whose patches/nightly holds
// the first four patches, then all seven): history finds the change point between the two
// sessions; `gate --confirm 1 --bisect` fails the count, confirms it and bisects what the series
// grew by (--good-patches 4) to patch 5 in CAND/bisect/; `bisect --from-change-point` does the same
// from the history. Every prefix is one the other tests built (the same diffs: the same build ids).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "results/index.h"
#include "results/sql.h"
#include "testing/bisect_dirs.h"
#include "testing/cli_binary.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/text.h"

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
          "--good-patches",
          "2",  // the quickstart's mthp-vmstat pair comes first in each
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

// Every run record of a session: build id -> whether the kernel came from the cache.
std::map<std::string, bool> kernels_of(const fs::path& session) {
  std::map<std::string, bool> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(session, ec)) {
    if (e.path().filename() != "run.json") continue;
    const nlohmann::json j = json_file(e.path());
    if (!j.contains("provenance")) continue;
    const auto& k = j["provenance"]["kernel"];
    out[k["build_id"].get<std::string>()] = k["cache_hit"].get<bool>();
  }
  return out;
}

struct Bisected {
  int exit = -1;
  std::string out;
  nlohmann::json log;  // bisect.json
};

Bisected bisect(const std::string& name, const std::string& series, const std::string& arch) {
  const fs::path dir = fresh_e2e_dir(name);
  const fs::path log = dir / "bisect.log";
  Bisected b;
  b.exit = wait_exit(spawn_cli(bisect_args(dir / "results", series, arch, "2"), log));
  b.out = *read_file(log);
  if (auto d = bisection_dir(dir / "results", "bisect-series"))
    b.log = json_file(*d / "bisect.json");
  fs::remove_all(dir);
  return b;
}

// The culprit named, confirmed (against its parent and by the series without it), in at most
// 3 steps after the ends.
void expect_culprit(const Bisected& b, size_t patch) {
  EXPECT_EQ(b.exit, 0) << b.out;
  EXPECT_NE(b.out.find(
                fmt::format("culprit patch {} of 7 ({}) (good → bad), confirmed", patch, kSubject)),
            std::string::npos)
      << b.out;
  // Two fresh boots each: 4096 faults of 4 KiB pages before, 256 of 64 KiB folios after.
  EXPECT_NE(b.out.find("n=4: 4096 4096 4096 4096 | n=4: 256 256 256 256"), std::string::npos)
      << b.out;
  EXPECT_NE(b.out.find(fmt::format("without patch {}: n=2: 4096 4096", patch)), std::string::npos)
      << b.out;
  ASSERT_TRUE(b.log.is_object()) << b.out;
  EXPECT_LE(b.log["steps"].size(), 2u + 3u) << b.out;
}

class E2EBisectSeriesArch : public ::testing::TestWithParam<const char*> {};

TEST_P(E2EBisectSeriesArch, CulpritFirstOrLastIsNamedAndNoCulpritDoesNotReproduce) {
  const std::string arch = GetParam();
  expect_culprit(bisect("bisect-first", "thp64k-first", arch), 3);
  expect_culprit(bisect("bisect-last", "thp64k-last", arch), 7);
  const Bisected none = bisect("bisect-none", "thp64k-none", arch);
  EXPECT_EQ(none.exit, 1) << none.out;
  EXPECT_NE(none.out.find("does not reproduce"), std::string::npos) << none.out;
  ASSERT_TRUE(none.log.is_object()) << none.out;
  EXPECT_EQ(none.log["steps"].size(), 2u) << none.out;  // the ends only
}

INSTANTIATE_TEST_SUITE_P(E2E, E2EBisectSeriesArch, ::testing::Values("x86_64", "arm64"),
                         [](const auto& info) { return std::string(info.param); });

TEST(E2EBisectSeries, Arm64NamesTheThirdPatchAndConfirmsIt) {
  expect_culprit(bisect("bisect-arm64", "thp64k-demo", "arm64"), 5);
}

// Runs the CLI to its end: exit code and output.
std::pair<int, std::string> cli(const std::vector<std::string>& args, const fs::path& log) {
  const int code = wait_exit(spawn_cli(args, log));
  return {code, *read_file(log)};
}

void copy_patches(const fs::path& to, size_t n) {
  const fs::path from = fs::path(source_dir()) / "patches/thp64k-demo";
  fs::remove_all(to);
  fs::create_directories(to);
  std::string series;
  size_t i = 0;
  const std::string listing = *read_file(from / "series");  // split_lines views it
  for (std::string_view name : split_lines(listing)) {
    if (i++ == n) break;
    fs::copy_file(from / name, to / name);
    series += std::string(name) + "\n";
  }
  ASSERT_TRUE(write_file_atomic(to / "series", series).ok());
}

// A nightly of the series: one fault count whose gate rule calls any move a failure.
constexpr const char* kNightlyYaml = R"(name: nightly
kernels:
  - name: mm
    patches: nightly
archs: [x86_64]
machine:
  cpus: 1
  memory: 512M
knobs:
  defaults: {}
workloads:
  - name: fault
    params: {size: 16M, threads: 1, mapping: anon}
repeat: 2
timeout: 300
gate:
  - name: the fault count is a contract
    metric: faults
    equal: true
)";

// `history --change-points` finds the session where faults moved, and the index keeps it
// (results/finding_index.h).
void expect_change_point(const fs::path& dir, const fs::path& results,
                         const std::string& first_after) {
  auto [hcode, hout] = cli(
      {"history", "faults", "--change-points", "--format", "json", "--results", results.string()},
      dir / "history.log");
  ASSERT_EQ(hcode, 0) << hout;
  EXPECT_NE(hout.find(fmt::format("\"first_after\": \"{}\"", first_after)), std::string::npos)
      << hout;
  {
    auto db = SqlDb::open((results / kIndexFile).string(), 1000);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ(
        *db->query_int(fmt::format("SELECT COUNT(*) FROM change_points WHERE metric = 'faults' AND "
                                   "after_session = '{}' AND method = 'count step'",
                                   first_after)),
        1);
  }
}

// The run.json values of `metric` per kernel name in a session (its reps pooled).
std::map<std::string, std::vector<double>> values_by_kernel(const fs::path& session,
                                                            const std::string& metric) {
  std::map<std::string, std::vector<double>> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(session, ec)) {
    if (e.path().filename() != "run.json") continue;
    const nlohmann::json j = json_file(e.path());
    for (const auto& rep : j["reps"]) {
      if (rep["metrics"].contains(metric)) {
        out[j["identity"]["kernel"]["name"].get<std::string>()].push_back(rep["metrics"][metric]);
      }
    }
  }
  return out;
}

// Issue 57: the gate's bisection leaves a regression report naming patch 5, a fix reverting it
// is tried in columns and fixes it (on the culprit and on the tip), and the reproduce folder,
// run where it is with a relative path into a fresh results root, measures the same change.
void expect_regression_report(const fs::path& dir, const fs::path& cand,
                              const std::vector<std::string>& common) {
  auto bisection = bisection_dir(cand / "bisect", "nightly");
  ASSERT_TRUE(bisection);
  const std::string text = *read_file(*bisection / "report.txt");
  const nlohmann::json report = json_file(*bisection / "report.json");
  // Fewer faults is better: the change the gate's `equal: true` refused is an improvement. (The
  // text wraps the headline at 100 columns; report.json holds it whole.)
  EXPECT_NE(report["headline"].get<std::string>().find(
                fmt::format("(improved) on patch 5 of 7 ({})", kSubject)),
            std::string::npos)
      << text;
  for (std::string_view line : split_lines(text)) {  // 100 columns: UTF-8 marks are one each
    EXPECT_LE(std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }),
              100)
        << line;
  }
  ASSERT_FALSE(report["moved"].empty()) << text;
  EXPECT_EQ(report["moved"][0]["metric"], "faults") << text;
  EXPECT_TRUE(fs::exists(*bisection / "reproduce/patches/tip/series")) << text;

  const std::string root = common[1];  // --root ROOT
  auto [tcode, tout] =
      cli({"try", (fs::path(source_dir()) / "harness/e2e/testdata/fix-64k-default.patch").string(),
           "--on", bisection->string(), "--root", root, "-j", "1", "-q"},
          dir / "try.log");
  EXPECT_EQ(tcode, 0) << tout;
  EXPECT_NE(tout.find("culprit+fix: fixed"), std::string::npos) << tout;
  EXPECT_NE(tout.find("tip+fix: fixed"), std::string::npos) << tout;
  const std::string tried = *read_file(*bisection / "try-fix-64k-default/report.txt");
  EXPECT_NE(tried.find("culprit+fix"), std::string::npos) << tried;

  const fs::path fresh = dir / "fresh-results";
  const ProcessResult rep = run_cli(
      {"run", "experiment.yaml", "--results", fresh.string(), "--root", root, "-j", "1", "-q"},
      *bisection / "reproduce", dir / "reproduce.log");
  EXPECT_EQ(rep.exit_code, 0) << rep.output;
  for (const auto& e : fs::directory_iterator(fresh / "nightly-reproduce")) {
    auto faults = values_by_kernel(e.path(), "faults");
    EXPECT_EQ(faults["parent"], std::vector<double>(2, 4096)) << rep.output;
    EXPECT_EQ(faults["culprit"], std::vector<double>(2, 256)) << rep.output;
  }
}

TEST(E2EBisectSeries, ANightlyWhoseSeriesGrewIsGatedAndBisectedFromItsChangePoint) {
  const fs::path dir = fresh_e2e_dir("bisect-nightly");
  const fs::path root = dir / "root", results = dir / "results";
  fs::create_directories(root);
  for (const char* shared : {"images", "kernel-config", "workloads"}) {
    fs::create_directory_symlink(fs::path(source_dir()) / shared, root / shared);
  }
  ASSERT_TRUE(write_file_atomic(root / "nightly.yaml", kNightlyYaml).ok());
  const std::vector<std::string> common = {"--root", root.string(), "--results", results.string(),
                                           "-j",     "1",           "-q"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), common.begin(), common.end());
    return args;
  };
  std::vector<fs::path> sessions;
  for (size_t patches : {4, 7}) {
    copy_patches(root / "patches/nightly", patches);
    auto [code, out] = cli(with({"run", (root / "nightly.yaml").string()}),
                           dir / fmt::format("run-{}.log", patches));
    ASSERT_EQ(code, 0) << out;
    std::set<fs::path> now;
    for (const auto& e : fs::directory_iterator(results / "nightly")) now.insert(e.path());
    for (const fs::path& s : now) {
      if (std::find(sessions.begin(), sessions.end(), s) == sessions.end()) sessions.push_back(s);
    }
  }
  ASSERT_EQ(sessions.size(), 2u);
  const std::string first_after = "nightly/" + sessions[1].filename().string();

  expect_change_point(dir, results, first_after);

  auto [gcode, gout] = cli(with({"gate", sessions[1].string(), "--baseline", sessions[0].string(),
                                 "--confirm", "1", "--bisect"}),
                           dir / "gate.log");
  EXPECT_EQ(gcode, 1) << gout;  // the gate's verdict: the count moved, and again on the rerun
  EXPECT_NE(
      gout.find(
          "bisect --series nightly --good-patches 4 --metric faults --where kernel=mm,arch=x86_64"),
      std::string::npos)
      << gout;
  EXPECT_NE(gout.find(fmt::format("culprit patch 5 of 7 ({}) (good → bad), confirmed", kSubject)),
            std::string::npos)
      << gout;
  EXPECT_NE(gout.find("the bisection ended with exit 0"), std::string::npos) << gout;
  EXPECT_TRUE(fs::exists(sessions[1] / "bisect/nightly")) << gout;
  EXPECT_TRUE(fs::exists(sessions[1] / "regressions/1/report.txt")) << gout;
  expect_regression_report(dir, sessions[1], common);

  auto [bcode, bout] = cli(with({"bisect", (root / "nightly.yaml").string(), "--from-change-point",
                                 first_after, "--metric", "faults", "--confirm", "1"}),
                           dir / "from-change-point.log");
  EXPECT_EQ(bcode, 0) << bout;
  EXPECT_NE(bout.find(fmt::format("change point of faults: nightly/{} → {}: bisect --series "
                                  "nightly --good-patches 4 --where kernel=mm,arch=x86_64",
                                  sessions[0].filename().string(), first_after)),
            std::string::npos)
      << bout;
  EXPECT_NE(bout.find(fmt::format("culprit patch 5 of 7 ({}) (good → bad), confirmed", kSubject)),
            std::string::npos)
      << bout;
  fs::remove_all(dir);
}

TEST(E2EBisectSeries, KilledAfterAStepResumesToTheSameAnswerRebuildingNothing) {
  const fs::path dir = fresh_e2e_dir("bisect-series-killed");
  const fs::path results = dir / "results", log = dir / "bisect.log";
  const pid_t cli = spawn_cli(bisect_args(results, "thp64k-demo", "x86_64", "1"), log);
  // Killed once the endpoints and a step are logged.
  const std::optional<fs::path> killed = kill_after_steps(cli, results, "bisect-series", 3);
  ASSERT_TRUE(killed) << "ended before it was killed: " << *read_file(log);
  const fs::path bisection = *killed;
  std::set<std::string> built;  // the kernels the killed call measured with
  const nlohmann::json before = json_file(bisection / "bisect.json");
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
  EXPECT_NE(out.find(fmt::format("culprit patch 5 of 7 ({}) (good → bad), confirmed", kSubject)),
            std::string::npos)
      << out;
  // 16 MiB: 4096 faults of 4 KiB pages before, 256 of 64 KiB folios after, and 4096 again
  // without patch 5.
  EXPECT_NE(out.find("n=2: 4096 4096 | n=2: 256 256"), std::string::npos) << out;
  EXPECT_NE(out.find("without patch 5: n=2: 4096 4096"), std::string::npos) << out;
  const nlohmann::json after = json_file(bisection / "bisect.json");
  EXPECT_LE(after["steps"].size(), 2u + 3u) << out;  // the endpoints, then <= 3 steps
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
  EXPECT_GT(reused, 0u);  // the confirmation boots patch 4 or 5, one of which a step built
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
