#include "bisect/bisect_counts.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "model/loader.h"
#include "runner/experiment_runner.h"
#include "testing/fake_artifacts.h"
#include "testing/fake_backend.h"
#include "testing/stream_builder.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

// Eight knob sets v1..v8; 64 KiB mTHP switches on at the 6th. The fake guest's
// mthp.64kB.anon_fault_alloc delta is 64 with it on, 0 with it off.
std::string eight_variants_yaml() {
  std::string y = "name: variants\nkernels:\n  - name: k\narchs: [x86_64, arm64]\nknobs:\n";
  for (int i = 1; i <= 8; ++i) {
    y += fmt::format("  v{}: {{hugepages-64kB/enabled: {}}}\n", i, i >= 6 ? "always" : "never");
  }
  return y + "workloads:\n  - name: fault\nrepeat: 2\ntimeout: 5\n";
}

// A series of five patches under patches/s5, the kernel of the experiment.
std::string series_yaml() {
  return "name: series\nkernels:\n  - name: k\n    patches: s5\narchs: [x86_64, arm64]\n"
         "knobs:\n  default: {}\nworkloads:\n  - name: fault\nrepeat: 2\ntimeout: 5\n";
}

// The patches (1-based) the fake kernel this guest boots applies, from its name: "k+3" holds the
// series' first three, "k-without-2" all five but the second, others none.
std::vector<int> applied(const fs::path& kernel_image) {
  const std::string name = kernel_image.parent_path().filename().string();
  std::vector<int> out;
  if (auto at = name.rfind('+'); at != std::string::npos) {
    for (int i = 1; i <= std::stoi(name.substr(at + 1)); ++i) out.push_back(i);
  } else if (auto w = name.rfind("-without-"); w != std::string::npos) {
    for (int i = 1; i <= 5; ++i) {
      if (i != std::stoi(name.substr(w + 9))) out.push_back(i);
    }
  }
  return out;
}

// 64 KiB mTHP faults: 32 when the knob set switches it on, and 32 per culprit patch the kernel
// applies (two culprits: two changes of the count), or with `either` 32 when any is applied
// (redundant patches: leaving one out changes nothing).
Result<BootOutcome> mthp_guest(const BootRequest& req, const std::vector<int>& culprits,
                               bool either) {
  BootOutcome out{.backend = "fake"};
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  auto job = read_file(req.run_dir / "job.txt");
  if (!job.ok()) return job.error();
  int thp_after = job->find("hugepages-64kB/enabled always") != std::string::npos ? 42 : 10;
  int hits = 0;
  for (int p : applied(req.kernel)) {
    hits += std::find(culprits.begin(), culprits.end(), p) != culprits.end();
  }
  thp_after += 32 * (either ? std::min(hits, 1) : hits);
  StreamBuilder b;
  b.with_version("#1 SMP PREEMPT_DYNAMIC foliolab-b1d0000000000001").prologue();
  for (int rep = 0; rep < 2; ++rep) {
    b.counters(rep, "before", 1000, 10).workload(rep);
    b.out("{\"pages\":16384,\"faults\":16384}\nFOLIOLAB-WORKLOAD-OK\n");
    b.counters(rep, "after", 17386, thp_after);
  }
  FL_TRY(write_file_atomic(out.records_file, b.done().bytes()));
  FL_TRY(write_file_atomic(out.console_log, "Linux version 6.12.117\n"));
  return out;
}

class CountBisect : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-bisect-variants");
    ASSERT_TRUE(write_file_atomic(root_ / "v.yaml", eight_variants_yaml()).ok());
    ASSERT_TRUE(write_file_atomic(root_ / "base.cpio", "070701").ok());
    artifacts_.base_cpio = root_ / "base.cpio";
    auto exp = load_experiment((root_ / "v.yaml").string());
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    exp_ = *exp;
    backend_.on_boot = [this](const BootRequest& req) {
      return mthp_guest(req, culprits_, either_);
    };
  }
  // The experiment over the five-patch series patches/s5.
  Experiment series_experiment() {
    fs::path dir = root_ / "patches" / "s5";
    std::string listing;
    for (int i = 1; i <= 5; ++i) {
      const std::string name = fmt::format("000{}-p{}.patch", i, i);
      EXPECT_TRUE(write_file_atomic(dir / name, fmt::format("patch {}\n", i)).ok());
      listing += name + "\n";
    }
    EXPECT_TRUE(write_file_atomic(dir / "series", listing).ok());
    EXPECT_TRUE(write_file_atomic(root_ / "s.yaml", series_yaml()).ok());
    auto exp = load_experiment((root_ / "s.yaml").string());
    EXPECT_TRUE(exp.ok()) << exp.error().message;
    return *exp;
  }
  Result<std::unique_ptr<CountBisectEvaluator>> series(const Experiment& exp, size_t good = 0) {
    auto c =
        series_candidates(exp, "s5", x86(), real_, root_ / "patches" / "s5", root_ / "mbox", good);
    if (!c.ok()) return c.error();
    return CountBisectEvaluator::make(std::move(*c), "mthp.64kB.anon_fault_alloc", x86(),
                                      session_run());
  }
  void TearDown() override { fs::remove_all(root_); }
  SessionRun session_run() {
    return [this](const Experiment& exp, const std::vector<foliolab::Run>& runs) {
      ++sessions_;
      RunnerOptions opt{.data_root = root_, .results_root = root_ / "results"};
      return ExperimentRunner(artifacts_, backend_, opt).run(exp, runs);
    };
  }
  RunSelector x86() {
    RunSelector where;
    where.arch = Arch::kX86_64;
    return where;
  }
  Result<std::unique_ptr<CountBisectEvaluator>> variants(
      std::vector<std::string> names = {"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"},
      std::optional<RunSelector> where = std::nullopt,
      const std::string& metric = "mthp.64kB.anon_fault_alloc") {
    auto c = variant_candidates(exp_, names, where.value_or(x86()));
    if (!c.ok()) return c.error();
    return CountBisectEvaluator::make(std::move(*c), metric, where.value_or(x86()), session_run());
  }
  fs::path root_;
  Experiment exp_;
  FakeArtifacts artifacts_;
  FakeBackend backend_;
  RealProcessRunner real_;
  std::vector<int> culprits_;  // the series' patches (1-based) that move the count
  bool either_ = false;        // any one of them moves it (else each adds to it)
  int sessions_ = 0;
};

TEST_F(CountBisect, NamesTheSixthOfEightInThreeStepsAndConfirmsIt) {
  auto eval = variants();
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 2);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->culprits.size(), 1u);
  EXPECT_EQ(out->culprits[0].first, 5u);  // v6
  EXPECT_EQ(out->steps.size(), 2u + 3u);  // the endpoints, then 3 steps
  EXPECT_TRUE(out->confirmed());
  for (const BisectStep& s : out->steps) {
    EXPECT_EQ(s.values, (std::vector<double>(2, s.candidate >= 5 ? 64 : 0))) << s.candidate;
    EXPECT_EQ(*s.cls, s.candidate >= 5 ? "bad" : "good");
  }
  EXPECT_EQ(sessions_, 5 + 2);  // a session a step, one per confirmation round
  EXPECT_EQ(out->confirmations[0].sessions.size(), 2u);
}

TEST_F(CountBisect, TheSameKnobSetsDoNotReproduce) {
  auto eval = variants({"v1", "v2", "v3"});
  ASSERT_TRUE(eval.ok());
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 2);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->state, BisectState::kDoesNotReproduce);
  EXPECT_EQ(sessions_, 2);
}

TEST_F(CountBisect, BadSpecsAreNamedBeforeAnythingRuns) {
  auto typo = variants({"v1", "v9x"});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("'v9x' is not a knob set"), std::string::npos);
  auto two = variants({"v1", "v8"}, RunSelector{});  // x86_64 and arm64: two runs per knob set
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("selects 2 runs"), std::string::npos);
  EXPECT_FALSE(variants({"v1", "v8"}, std::nullopt, "sys_s").ok());
  EXPECT_EQ(sessions_, 0);
}

TEST_F(CountBisect, EveryCulpritOfAFivePatchSeriesIsNamedAndConfirmedWithoutItself) {
  const Experiment exp = series_experiment();
  for (int culprit = 1; culprit <= 5; ++culprit) {
    culprits_ = {culprit};
    auto eval = series(exp);
    ASSERT_TRUE(eval.ok()) << eval.error().message;
    EXPECT_EQ((*eval)->candidates(), 6u);  // no patches, then each prefix
    fs::remove(root_ / "bisect.json");
    auto log = BisectLog::open(root_ / "bisect.json");
    auto out = run_bisect(**eval, *log, 1);
    ASSERT_TRUE(out.ok()) << out.error().message;
    ASSERT_EQ(out->culprits.size(), 1u) << culprit;
    EXPECT_EQ(out->culprits[0].first, static_cast<size_t>(culprit));
    EXPECT_LE(out->steps.size(), 2u + 3u) << culprit;  // ceil(log2 5) after the endpoints
    EXPECT_TRUE(out->confirmed()) << out->confirmations[0].evidence;
    EXPECT_NE(
        out->confirmations[0].evidence.find(fmt::format("without patch {}: n=2: 0 0", culprit)),
        std::string::npos)
        << out->confirmations[0].evidence;
  }
  // Each candidate built its prefix, the check the series without its culprit.
  EXPECT_EQ(artifacts_.specs.back().name, "k-without-5");
  EXPECT_EQ(*artifacts_.specs.back().patches_pick, (std::vector<size_t>{0, 1, 2, 3}));
}

// --good-patches 2: the first two are known good, the search walks patches 3-5 only (candidate
// 0 applies two), and patch numbers stay the series' own.
TEST_F(CountBisect, KnownGoodPatchesAreNotWalkedAgain) {
  const Experiment exp = series_experiment();
  culprits_ = {4};
  auto eval = series(exp, 2);
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  EXPECT_EQ((*eval)->candidates(), 4u);  // patches 1-2, then + 3, 4, 5
  EXPECT_EQ((*eval)->candidate_list().names[0], "patches 1-2 of 5 (known good)");
  EXPECT_EQ((*eval)->candidate_list().names[2], "patch 4 of 5 (0004-p4.patch)");
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 1);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->culprits.size(), 1u);
  EXPECT_EQ(out->culprits[0].first, 2u);  // candidate 2: patch 4
  EXPECT_TRUE(out->confirmed()) << out->confirmations[0].evidence;
  EXPECT_NE(out->confirmations[0].evidence.find("without patch 4: n=2: 0 0"), std::string::npos)
      << out->confirmations[0].evidence;
  EXPECT_EQ(artifacts_.specs.front().name, "k+2");
  EXPECT_FALSE(series(exp, 5).ok());  // nothing left to walk
}

TEST_F(CountBisect, TwoCulpritsAreBothFoundAndEachCarriesItsOwnChange) {
  const Experiment exp = series_experiment();
  culprits_ = {2, 4};
  auto eval = series(exp);
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 1);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->culprits.size(), 2u);
  EXPECT_EQ(out->culprits[0].first, 2u);
  EXPECT_EQ(out->culprits[1].first, 4u);
  ASSERT_EQ(out->confirmations.size(), 2u);
  for (const auto& c : out->confirmations) EXPECT_TRUE(c.confirmed) << c.evidence;
}

TEST_F(CountBisect, ACulpritWhoseChangeStaysWithoutItIsUnconfirmed) {
  const Experiment exp = series_experiment();
  // Patches 3 and 5 each switch the same default on: the count moves at 3, but the series
  // without 3 still shows it, so 3 alone is not what a revert would fix.
  culprits_ = {3, 5};
  either_ = true;
  auto eval = series(exp);
  ASSERT_TRUE(eval.ok());
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 1);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->culprits.size(), 1u);
  EXPECT_EQ(out->culprits[0].first, 3u);
  EXPECT_FALSE(out->confirmed());
  EXPECT_NE(out->confirmations[0].evidence.find("(the change stays without it)"), std::string::npos)
      << out->confirmations[0].evidence;
}

TEST_F(CountBisect, ASeriesNamedByNoKernelIsABadRequest) {
  const Experiment exp = series_experiment();
  auto c = series_candidates(exp, "other", x86(), real_, root_ / "patches" / "other", root_);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("naming patches: other"), std::string::npos)
      << c.error().message;
  EXPECT_EQ(sessions_, 0);
}

}  // namespace
}  // namespace foliolab
