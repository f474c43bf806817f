#include "runner/bisect_variants.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "model/loader.h"
#include "runner/experiment_runner.h"
#include "testing/fake_artifacts.h"
#include "testing/fake_backend.h"
#include "testing/stream_builder.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

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

Result<BootOutcome> mthp_guest(const BootRequest& req) {
  BootOutcome out{.backend = "fake"};
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  auto job = read_file(req.run_dir / "job.txt");
  if (!job.ok()) return job.error();
  const int thp_after = job->find("hugepages-64kB/enabled always") != std::string::npos ? 42 : 10;
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

class VariantBisect : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-bisect-variants");
    ASSERT_TRUE(write_file_atomic(root_ / "v.yaml", eight_variants_yaml()).ok());
    ASSERT_TRUE(write_file_atomic(root_ / "base.cpio", "070701").ok());
    artifacts_.base_cpio = root_ / "base.cpio";
    auto exp = load_experiment((root_ / "v.yaml").string());
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    exp_ = *exp;
    backend_.on_boot = mthp_guest;
  }
  void TearDown() override { fs::remove_all(root_); }
  SessionRun session_run() {
    return [this](const std::vector<foliolab::Run>& runs) {
      ++sessions_;
      RunnerOptions opt{.project_root = root_, .results_root = root_ / "results"};
      return ExperimentRunner(artifacts_, backend_, opt).run(exp_, runs);
    };
  }
  VariantBisectSpec spec(std::vector<std::string> variants = {"v1", "v2", "v3", "v4", "v5", "v6",
                                                              "v7", "v8"}) {
    VariantBisectSpec s{.variants = std::move(variants), .metric = "mthp.64kB.anon_fault_alloc"};
    s.where.arch = Arch::kX86_64;
    return s;
  }
  fs::path root_;
  Experiment exp_;
  FakeArtifacts artifacts_;
  FakeBackend backend_;
  int sessions_ = 0;
};

TEST_F(VariantBisect, NamesTheSixthOfEightInThreeStepsAndConfirmsIt) {
  auto eval = VariantBisectEvaluator::make(exp_, spec(), session_run());
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

TEST_F(VariantBisect, TheSameKnobSetsDoNotReproduce) {
  auto eval = VariantBisectEvaluator::make(exp_, spec({"v1", "v2", "v3"}), session_run());
  ASSERT_TRUE(eval.ok());
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 2);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->state, BisectState::kDoesNotReproduce);
  EXPECT_EQ(sessions_, 2);
}

TEST_F(VariantBisect, BadSpecsAreNamedBeforeAnythingRuns) {
  auto typo = VariantBisectEvaluator::make(exp_, spec({"v1", "v9x"}), session_run());
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("'v9x' is not a knob set"), std::string::npos);
  VariantBisectSpec both = spec({"v1", "v8"});
  both.where.arch.reset();  // x86_64 and arm64: two runs per knob set
  auto two = VariantBisectEvaluator::make(exp_, both, session_run());
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("selects 2 runs"), std::string::npos);
  VariantBisectSpec timing = spec({"v1", "v8"});
  timing.metric = "sys_s";
  EXPECT_FALSE(VariantBisectEvaluator::make(exp_, timing, session_run()).ok());
  EXPECT_EQ(sessions_, 0);
}

}  // namespace
}  // namespace foliolab
