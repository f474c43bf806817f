// The timing bisection through the shared FakeBackend: a fake guest whose fault workload reports
// cpu_s 1.00 s before the culprit knob set and 1.10 s from it on, with 0.5 % seeded noise per
// rep, as icount instruction-time would show it. The sequential test must name the culprit and
// the confirmation must see the change; wall-clock TCG timings are refused before anything runs.
#include "bisect/bisect_timings.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <regex>

#include "model/loader.h"
#include "runner/experiment_runner.h"
#include "testing/fake_artifacts.h"
#include "testing/fake_backend.h"
#include "testing/seeded_normal.h"
#include "testing/stream_builder.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

std::string yaml(const std::string& timing, int slow_from) {
  std::string y =
      "name: timings\nkernels:\n  - name: k\narchs: [x86_64]\nmachine: {timing: " + timing +
      "}\nknobs:\n";
  for (int i = 1; i <= 8; ++i) {
    y += fmt::format("  v{}: {{khugepaged/scan_sleep_millisecs: {}}}\n", i,
                     i >= slow_from ? 20000 + i : 10000 + i);
  }
  return y + "workloads:\n  - name: fault\nrepeat: 2\ntimeout: 5\n";
}

class TimingBisect : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-bisect-timings");
    ASSERT_TRUE(write_file_atomic(root_ / "base.cpio", "070701").ok());
    artifacts_.base_cpio = root_ / "base.cpio";
    backend_.on_boot = [this](const BootRequest& req) { return guest(req); };
  }
  void TearDown() override { fs::remove_all(root_); }
  Experiment load(const std::string& timing, int slow_from = 6) {
    EXPECT_TRUE(write_file_atomic(root_ / "t.yaml", yaml(timing, slow_from)).ok());
    auto exp = load_experiment((root_ / "t.yaml").string());
    EXPECT_TRUE(exp.ok()) << exp.error().message;
    return *exp;
  }
  // cpu_s: 1.10 s when the knob set's scan interval is 2xxxx (the slow ones), else 1.00 s.
  Result<BootOutcome> guest(const BootRequest& req) {
    BootOutcome out{.backend = "fake"};
    out.console_log = req.run_dir / "console.log";
    out.records_file = req.run_dir / "records.bin";
    std::smatch m;
    const std::string job = req.job_text;
    const int reps = std::regex_search(job, m, std::regex("repeat (\\d+)")) ? std::stoi(m[1]) : 1;
    const double base = job.find("scan_sleep_millisecs 2") != std::string::npos ? 1.10 : 1.00;
    StreamBuilder b;
    b.with_version("#1 SMP PREEMPT_DYNAMIC foliolab-b1d0000000000001").prologue();
    for (int rep = 0; rep < reps; ++rep) {
      b.counters(rep, "before", 1000, 10).workload(rep);
      b.out(
          fmt::format("{{\"pages\":16384,\"faults\":16384,\"cpu_s\":{:.6f}}}\n"
                      "FOLIOLAB-WORKLOAD-OK\n",
                      base * (1 + 0.005 * noise_.normal())));
      b.counters(rep, "after", 17386, 10);
    }
    FL_TRY(write_file_atomic(out.records_file, b.done().bytes()));
    FL_TRY(write_file_atomic(out.console_log, "Linux version 6.12.117\n"));
    ++boots_;
    return out;
  }
  Result<std::unique_ptr<TimingBisectEvaluator>> evaluator(const Experiment& exp) {
    exp_ = exp;
    RunSelector where;
    auto c = variant_candidates(exp_, {"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"}, where);
    if (!c.ok()) return c.error();
    SessionRun run = [this](const Experiment& e, const std::vector<foliolab::Run>& runs) {
      RunnerOptions opt{.data_root = root_, .results_root = root_ / "results"};
      return ExperimentRunner(artifacts_, backend_, opt).run(e, runs);
    };
    return TimingBisectEvaluator::make(std::move(*c), "cpu_s", run, {});
  }
  fs::path root_;
  Experiment exp_;
  FakeArtifacts artifacts_;
  FakeBackend backend_;
  SeededNormal noise_{20261201};
  int boots_ = 0;
};

TEST_F(TimingBisect, TheSixthOfEightIsNamedByTheSequentialTestAndConfirmed) {
  auto eval = evaluator(load("icount"));
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  EXPECT_NE((*eval)->predicted_cost(3).find("predicted: 2-3 steps"), std::string::npos)
      << (*eval)->predicted_cost(3);
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 3);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->culprits.size(), 1u);
  EXPECT_EQ(out->culprits[0].first, 5u);  // v6
  ASSERT_TRUE(out->confirmed()) << out->confirmations[0].evidence;
  EXPECT_NE(out->confirmations[0].evidence.find("+10."), std::string::npos)
      << out->confirmations[0].evidence;
  for (const BisectStep& s : out->steps) {
    if (s.candidate == 0 || s.candidate == 7) {
      EXPECT_EQ(s.values.size(), 12u);  // the ends' reps
    } else {
      EXPECT_GE(s.values.size(), 4u);  // at least the first look
      EXPECT_NE(s.evidence.find(*s.cls == "good" ? "like good" : "like bad"), std::string::npos)
          << s.evidence;
    }
  }
}

TEST_F(TimingBisect, EndsWithoutAVerdictBetweenThemDoNotReproduce) {
  auto eval = evaluator(load("icount", 99));  // no knob set is slow
  ASSERT_TRUE(eval.ok()) << eval.error().message;
  auto log = BisectLog::open(root_ / "bisect.json");
  auto out = run_bisect(**eval, *log, 3);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->state, BisectState::kDoesNotReproduce);
  EXPECT_EQ(boots_, 2);  // the two ends, nothing else
}

TEST_F(TimingBisect, WallClockTimingsUnderTcgAreRefusedWithTheReason) {
  auto eval = evaluator(load("wall"));
  ASSERT_FALSE(eval.ok());
  EXPECT_NE(eval.error().message.find("--timing icount"), std::string::npos)
      << eval.error().message;
  EXPECT_EQ(boots_, 0);
}

}  // namespace
}  // namespace foliolab
