#include "runner/experiment_runner.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <atomic>

#include <functional>
#include <map>
#include <mutex>

#include "model/loader.h"
#include "model/matrix.h"
#include "model/shard.h"
#include "results/record_codec.h"
#include "runner/run_executor.h"
#include "runner/scheduler.h"
#include "testing/fake_artifacts.h"
#include "testing/fake_backend.h"
#include "testing/fake_experiment.h"
#include "testing/stream_builder.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-runner");
    ASSERT_TRUE(write_file_atomic(root_ / "fake.yaml", kFakeExperimentYaml).ok());
    ASSERT_TRUE(write_file_atomic(root_ / "base.cpio", "070701").ok());
    artifacts_.base_cpio = root_ / "base.cpio";
    auto exp = load_experiment((root_ / "fake.yaml").string());
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    exp_ = *exp;
    runs_ = expand(exp_);
  }
  void TearDown() override { fs::remove_all(root_); }
  RunnerOptions options() { return {.data_root = root_, .results_root = root_ / "results"}; }
  std::string status_of(const ResultStore& store, const std::string& knob_set,
                        const std::string& kernel = "good") {
    for (const auto& r : runs_) {
      if (exp_.knob_sets[r.knob_set].name == knob_set && exp_.kernels[r.kernel].name == kernel) {
        auto rec = store.load_record(r.id);
        return rec.ok() ? rec->status : "<none>";
      }
    }
    return "<no such run>";
  }
  fs::path root_;
  Experiment exp_;
  std::vector<foliolab::Run> runs_;
  FakeArtifacts artifacts_;
};

TEST_F(RunnerTest, PanicHangAndBuildFailureFailOnlyTheirRunsAndTheMatrixGoesOn) {
  FakeBackend backend;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->total, 8);
  EXPECT_EQ(summary->ok, 2);
  EXPECT_EQ(summary->failed, 6);
  EXPECT_EQ(backend.boots, 4);             // the broken kernel's runs never boot
  EXPECT_EQ(artifacts_.kernel_builds, 2);  // once per (kernel, arch), not per run
  auto store = ResultStore::open(summary->dir);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(status_of(*store, "ok-a"), "ok");
  EXPECT_EQ(status_of(*store, "ok-b"), "ok");
  EXPECT_EQ(status_of(*store, "panics"), "failed");
  EXPECT_EQ(status_of(*store, "hangs"), "timed-out");
  EXPECT_EQ(status_of(*store, "ok-a", "broken"), "build-failed");
  for (const auto& r : runs_) {
    auto rec = store->load_record(r.id);
    ASSERT_TRUE(rec.ok());
    if (exp_.knob_sets[r.knob_set].name == "panics" && exp_.kernels[r.kernel].name == "good") {
      EXPECT_NE(rec->reason.find("Kernel panic - not syncing: Attempted to kill init!"),
                std::string::npos)
          << rec->reason;
      EXPECT_EQ(rec->failure, FailureClass::kGuest);
      EXPECT_TRUE(fs::exists(store->run_dir(r.id) / "console.log"));  // kept for the post-mortem
    }
    if (rec->status == "build-failed") {
      EXPECT_EQ(rec->failure, FailureClass::kHost);
    }
    if (rec->status == "timed-out") {
      EXPECT_EQ(rec->failure, FailureClass::kGuest);
    }
    if (rec->ok()) {
      EXPECT_EQ(rec->schema, kRunRecordSchema);
      EXPECT_EQ(rec->failure, FailureClass::kNone);
      EXPECT_EQ(rec->provenance.accel, "tcg");
      EXPECT_EQ(rec->provenance.kernel_build_id, "b1d0000000000001");
      EXPECT_EQ(rec->reps.size(), 2u);
      EXPECT_EQ(rec->artifacts.console_log, "console.log");
      EXPECT_EQ(rec->artifacts.job, "job.txt");
    }
  }
}

TEST_F(RunnerTest, GuestRunningAnotherKernelIsAFailure) {
  class WrongKernel : public FakeBackend {
   public:
    Result<BootOutcome> boot(const BootRequest& req) override {
      auto out = FakeBackend::boot(req);
      StreamBuilder b;
      b.with_version("#1 SMP foliolab-ffffffffffffffff").prologue().rep(0, 1).rep(1, 1).done();
      EXPECT_TRUE(write_file_atomic(out->records_file, b.bytes()).ok());
      return out;
    }
  } backend;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_TRUE(summary.ok());
  auto store = ResultStore::open(summary->dir);
  EXPECT_EQ(status_of(*store, "ok-a"), "failed");
}

TEST_F(RunnerTest, GuestReportingAnotherReleaseIsAFailure) {
  class WrongRelease : public FakeBackend {
   public:
    Result<BootOutcome> boot(const BootRequest& req) override {
      auto out = FakeBackend::boot(req);
      StreamBuilder b;
      b.with_version("#1 SMP foliolab-b1d0000000000001").with_release("6.1.0-28-amd64");
      b.prologue().rep(0, 1).rep(1, 1).done();
      EXPECT_TRUE(write_file_atomic(out->records_file, b.bytes()).ok());
      return out;
    }
  } backend;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_TRUE(summary.ok());
  auto store = ResultStore::open(summary->dir);
  EXPECT_EQ(status_of(*store, "ok-a"), "failed");
  for (const auto& r : runs_) {
    if (exp_.knob_sets[r.knob_set].name != "ok-a" || exp_.kernels[r.kernel].name != "good")
      continue;
    EXPECT_NE(store->load_record(r.id)->reason.find(
                  "guest reports release '6.1.0-28-amd64', but the built tree is version 6.12.0"),
              std::string::npos);
  }
}

// QEMU itself died (an abort at start, as under broken nested KVM): the reason carries its exit
// and its own last words, not a guess about the agent.
TEST_F(RunnerTest, EmulatorThatDiesGivesItsOwnWordsAsTheReason) {
  class Aborting : public FakeBackend {
   public:
    Result<BootOutcome> boot(const BootRequest& req) override {
      auto out = FakeBackend::boot(req);
      EXPECT_TRUE(write_file_atomic(out->records_file, "").ok());
      out->abnormal_exit = true;
      out->exit =
          "killed by signal 6 (Aborted); qemu.log: qemu-system-x86_64: error: failed to set MSR "
          "0x10a to 0x69";
      return out;
    }
  } backend;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_TRUE(summary.ok());
  auto store = ResultStore::open(summary->dir);
  for (const auto& r : runs_) {
    // The fake's panicking and hanging guests have their own reasons.
    if (exp_.kernels[r.kernel].name != "good" ||
        exp_.knob_sets[r.knob_set].name.rfind("ok-", 0) != 0)
      continue;
    auto rec = store->load_record(r.id);
    ASSERT_TRUE(rec.ok());
    EXPECT_EQ(rec->status, "failed");
    EXPECT_EQ(rec->failure, FailureClass::kHost);
    const std::string why = rec->reason;
    EXPECT_EQ(
        why.rfind("fake ended: killed by signal 6 (Aborted); qemu.log: qemu-system-x86_64: error: "
                  "failed to set MSR 0x10a to 0x69",
                  0),
        0u)
        << why;
  }
}

TEST_F(RunnerTest, AccelIsResolvedOncePerArchAndRecordedWithItsReason) {
  FakeBackend backend;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(backend.accel_requests, 1);
  auto store = ResultStore::open(summary->dir);
  auto rec = store->load_record(runs_[0].id);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->provenance.accel, "tcg");
  EXPECT_EQ(rec->provenance.accel_requested, "auto");
  EXPECT_EQ(rec->provenance.accel_reason, "auto: fake host has no KVM");
}

// The runner settles which guest kernel each kernel is (catalog/guest_kernel.h) as `foliolab run`
// does, so an experiment loaded by its caller builds the same kernels: small here, full once a
// run needs more than one CPU on x86_64.
TEST_F(RunnerTest, TheGuestKernelIsSettledFromTheExperiment) {
  FakeBackend backend;
  ExperimentRunner runner(artifacts_, backend, options());
  ASSERT_TRUE(runner.run(exp_, runs_).ok());
  ASSERT_FALSE(artifacts_.specs.empty());
  for (const KernelSpec& k : artifacts_.specs) EXPECT_TRUE(k.full_guest.empty()) << k.name;
  artifacts_.specs.clear();
  exp_.machine.cpus = 2;
  ASSERT_TRUE(runner.run(exp_, runs_).ok());
  ASSERT_FALSE(artifacts_.specs.empty());
  for (const KernelSpec& k : artifacts_.specs) {
    EXPECT_EQ(k.full_guest, std::vector<Arch>{Arch::kX86_64}) << k.name;
  }
}

TEST_F(RunnerTest, ExplicitKvmThatCannotWorkIsAnErrorBeforeAnyRun) {
  FakeBackend backend;
  exp_.machine.accel = AccelChoice::kKvm;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("x86_64 (fake): accel kvm was requested"),
            std::string::npos)
      << summary.error().message;
  EXPECT_EQ(backend.boots, 0);
}

TEST_F(RunnerTest, ParallelGuestsGiveTheSameRunsAndRecordsAsOneAtATime) {
  std::map<std::string, std::string> status_by_id[2];
  for (int jobs : {1, 2}) {
    FakeBackend backend;
    RunnerOptions opt = options();
    opt.jobs = jobs;
    opt.results_root = root_ / fmt::format("results-j{}", jobs);
    ExperimentRunner runner(artifacts_, backend, opt);
    auto summary = runner.run(exp_, runs_);
    ASSERT_TRUE(summary.ok()) << summary.error().message;
    EXPECT_EQ(summary->ok, 2);
    EXPECT_EQ(summary->failed, 6);
    auto all = ResultStore::open(summary->dir)->load_all();
    ASSERT_TRUE(all.ok());
    for (const auto& r : *all) {
      status_by_id[jobs - 1][r.id.run_id] = r.status + "/" + r.reason.substr(0, 30);
      EXPECT_LE(r.provenance.guests_beside, jobs - 1);
    }
  }
  EXPECT_EQ(status_by_id[0], status_by_id[1]);
  EXPECT_EQ(status_by_id[0].size(), 8u);
}

TEST(GuestJobs, CoresBoundedByMemory) {
  EXPECT_EQ(guest_jobs_for(2, 24000, 1024), 2);
  EXPECT_EQ(guest_jobs_for(8, 3000, 1024), 2);  // 3000 / (1024 + 256)
  EXPECT_EQ(guest_jobs_for(8, 100, 1024), 1);   // never below one
  EXPECT_EQ(guest_jobs_for(0, 100000, 512), 1);
}

// The results disk fills up mid-matrix: a host failure, named as such, that stops the matrix
// with every finished run kept; --resume completes it once space is free.
TEST_F(RunnerTest, FullResultsDiskStopsTheMatrixAndResumeCompletesIt) {
  FakeBackend backend;
  RunnerOptions opt = options();
  int checks = 0;
  uint64_t free_space = 1ull << 30;
  opt.free_bytes = [&](const fs::path&) {
    if (++checks == 3) free_space = 1 << 20;  // full from the third run on
    return free_space;
  };
  ExperimentRunner runner(artifacts_, backend, opt);
  auto summary = runner.run(exp_, runs_);
  ASSERT_FALSE(summary.ok());
  const std::string why = summary.error().message;
  EXPECT_NE(why.find("host failure, matrix stopped: results disk full: 1.0 MiB free"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("--resume-dir"), std::string::npos) << why;
  auto dir = ResultStore::latest(root_ / "results", exp_.name);
  ASSERT_TRUE(dir);
  auto kept = ResultStore::open(*dir)->load_all();
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->size(),
            6u);  // the broken kernel's 4 build failures and the 2 runs before the disk filled
  EXPECT_EQ(backend.boots, 2);

  free_space = 1ull << 30;
  FakeBackend second;
  opt.resume_dir = *dir;
  ExperimentRunner resumed(artifacts_, second, opt);
  auto s2 = resumed.run(exp_, runs_);
  ASSERT_TRUE(s2.ok()) << s2.error().message;
  EXPECT_EQ(second.boots, 2);
  EXPECT_EQ(s2->ok + s2->failed, 8);
}

// The disk fills up while QEMU writes the record stream: nothing (or a torn stream) arrives.
// That is the host's failure, not the guest's: no record for the run, the matrix stops.
TEST_F(RunnerTest, RecordStreamLostToAFullDiskIsAHostFailure) {
  class DiskFillsDuringBoot : public FakeBackend {
   public:
    Result<BootOutcome> boot(const BootRequest& req) override {
      auto out = FakeBackend::boot(req);
      EXPECT_TRUE(write_file_atomic(out->records_file, "").ok());
      *full = true;
      return out;
    }
    bool* full = nullptr;
  } backend;
  bool full = false;
  backend.full = &full;
  RunnerOptions opt = options();
  opt.free_bytes = [&](const fs::path&) -> uint64_t { return full ? 0 : 1ull << 30; };
  ExperimentRunner runner(artifacts_, backend, opt);
  auto summary = runner.run(exp_, runs_);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("results disk full while the guest wrote its records"),
            std::string::npos)
      << summary.error().message;
  auto dir = ResultStore::latest(root_ / "results", exp_.name);
  ASSERT_TRUE(dir);
  EXPECT_EQ(ResultStore::open(*dir)->load_all()->size(), 4u);  // only the build failures
}

// The emulator cannot start at all (missing): every run would fail the same way, so this is a
// host failure that stops the matrix instead of failing each run.
TEST_F(RunnerTest, EmulatorThatCannotStartIsAHostFailure) {
  class Missing : public FakeBackend {
   public:
    Result<BootOutcome> boot(const BootRequest&) override {
      ++boots;
      return make_error("cannot start QEMU: qemu-system-x86_64: not found in PATH");
    }
  } backend;
  ExperimentRunner runner(artifacts_, backend, options());
  auto summary = runner.run(exp_, runs_);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("host failure, matrix stopped: cannot start QEMU"),
            std::string::npos);
  EXPECT_EQ(backend.boots, 1);
}

TEST_F(RunnerTest, ResumeKeepsCollectedResultsAndRunsOnlyWhatIsMissing) {
  FakeBackend first;
  ExperimentRunner runner(artifacts_, first, options());
  auto s1 = runner.run(exp_, runs_);
  ASSERT_TRUE(s1.ok());
  auto store = ResultStore::open(s1->dir);
  // Simulate an interruption that lost the last run's record (it was never written).
  const foliolab::Run& last_good = runs_[3];
  ASSERT_EQ(exp_.knob_sets[last_good.knob_set].name, "ok-b");
  const std::string before = *read_file(store->run_dir(runs_[0].id) / "run.json");
  fs::remove(store->run_dir(last_good.id) / "run.json");

  FakeBackend second;
  RunnerOptions opt = options();
  opt.resume_dir = s1->dir;
  ExperimentRunner resumed(artifacts_, second, opt);
  auto s2 = resumed.run(exp_, runs_);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(s2->dir, s1->dir);
  EXPECT_EQ(second.boots, 1);  // only the missing run
  EXPECT_EQ(s2->skipped, 7);
  EXPECT_EQ(status_of(*store, "ok-b"), "ok");
  EXPECT_EQ(*read_file(store->run_dir(runs_[0].id) / "run.json"), before);  // untouched

  FakeBackend third;
  opt.retry_failed = true;
  ExperimentRunner retry(artifacts_, third, opt);
  ASSERT_TRUE(retry.run(exp_, runs_).ok());
  EXPECT_EQ(third.boots, 2);  // the panic and the hang; build failures need no boot
}

TEST_F(RunnerTest, EveryStoredRunIsIndexedWhenItEnds) {
  FakeBackend backend;
  auto index = ResultIndex::open(root_ / "results");
  ASSERT_TRUE(index.ok()) << index.error().message;
  RunnerOptions opt = options();
  opt.index = &*index;
  ExperimentRunner runner(artifacts_, backend, opt);
  auto summary = runner.run(exp_, runs_);
  ASSERT_TRUE(summary.ok());
  RunQuery all;
  all.include_failed = true;
  auto runs = index->find_runs(all);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ(runs->size(), 8u);
  auto ok = index->find_runs(RunQuery{});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 2u);
  for (const IndexedRun& r : *ok) EXPECT_EQ(r.session_dir, summary->dir);
}

TEST(FindPanic, ExtractsThePanicLine) {
  EXPECT_EQ(find_panic("a\n[ 1.0] Kernel panic - not syncing: VFS: Unable to mount root\r\nb"),
            "Kernel panic - not syncing: VFS: Unable to mount root");
  EXPECT_EQ(find_panic("all good"), "");
}

// `run --shard K/N`: the session holds only its slice, builds only the kernels that slice
// needs, and records the shard and the whole plan's hash; --resume stays within the shard.
TEST_F(RunnerTest, AShardRunsItsSliceBuildsOnlyItsKernelsAndRecordsItsPlace) {
  // Sorted run ids: the four x86_64.broken.* runs, then the four x86_64.good.* runs.
  const Shard second{2, 2};
  const auto slice = shard_runs(runs_, second);
  ASSERT_EQ(slice.size(), 4u);
  FakeBackend backend;
  RunnerOptions opt = options();
  opt.shard = RunnerOptions::ShardOf{second, plan_hash(runs_), static_cast<int>(runs_.size())};
  auto summary = ExperimentRunner(artifacts_, backend, opt).run(exp_, slice);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->total, 4);
  EXPECT_EQ(artifacts_.kernel_builds, 1);  // "good" only
  auto store = ResultStore::open(summary->dir);
  auto all = store->load_all();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 4u);
  for (const RunRecord& r : *all) EXPECT_EQ(r.id.kernel.name, "good");
  auto plan = store->load_plan();
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->shard, second);
  EXPECT_EQ(plan->hash, plan_hash(runs_));
  EXPECT_EQ(plan->plan_runs, 8);
  EXPECT_EQ(plan->runs.size(), 4u);
  EXPECT_EQ(plan->experiment, "fake");

  // Another shard cannot continue this session.
  const auto first = shard_runs(runs_, {1, 2});
  RunnerOptions other = options();
  other.shard = RunnerOptions::ShardOf{{1, 2}, plan_hash(runs_), 8};
  other.resume_dir = summary->dir;
  auto refused = ExperimentRunner(artifacts_, backend, other).run(exp_, first);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            fmt::format("cannot resume {}: it ran shard 2/2 of plan {}, this is shard 1/2 "
                        "of plan {}",
                        summary->dir.string(), plan_hash(runs_), plan_hash(runs_)));
  // --resume (the newest session) skips sessions of other shards: shard 1 starts afresh, and
  // shard 2 resumes its own session with nothing left to do.
  other.resume_dir.reset();
  other.resume_latest = true;
  auto fresh = ExperimentRunner(artifacts_, backend, other).run(exp_, first);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_NE(fresh->dir, summary->dir);
  EXPECT_EQ(fresh->skipped, 0);
  opt.resume_latest = true;
  const int boots = backend.boots;
  auto again = ExperimentRunner(artifacts_, backend, opt).run(exp_, slice);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->dir, summary->dir);
  EXPECT_EQ(again->skipped, 4);
  EXPECT_EQ(backend.boots, boots);
}

// machine.image (issue 20): every guest gets the recipe's disk and a job that mounts it, and its
// record names the root filesystem it booted.
TEST_F(RunnerTest, MachineImageRunsBootTheRootDiskAndRecordIt) {
  exp_.machine.image = "debian-redis";
  runs_ = expand(exp_);
  std::mutex mu;
  std::vector<BootRequest> boots;
  FakeBackend backend;
  backend.on_boot = [&](const BootRequest& req) {
    {
      std::lock_guard<std::mutex> lock(mu);
      boots.push_back(req);
    }
    return scripted_guest_boot(req);
  };
  auto summary = ExperimentRunner(artifacts_, backend, options()).run(exp_, runs_);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->ok, 2);
  EXPECT_EQ(artifacts_.rootfs_builds, 1);
  ASSERT_EQ(boots.size(), 4u);
  for (const BootRequest& req : boots) {
    EXPECT_EQ(req.root_disk, "/nonexistent/rootfs/debian-redis-x86_64.ext4");
    EXPECT_NE(req.job_text.find("\nrootfs /dev/vda\n"), std::string::npos) << req.job_text;
  }
  auto store = ResultStore::open(summary->dir);
  ASSERT_TRUE(store.ok());
  auto all = store->load_all();
  ASSERT_TRUE(all.ok());
  int ok = 0;
  for (const RunRecord& r : *all) {
    if (!r.ok()) continue;
    ++ok;
    EXPECT_EQ(r.provenance.rootfs_recipe, "debian-redis");
    EXPECT_EQ(r.provenance.rootfs_id, "5555666677778888");
  }
  EXPECT_EQ(ok, 2);
}

TEST_F(RunnerTest, ARootfsThatCannotBeBuiltFailsItsRunsAndTheMatrixEnds) {
  exp_.machine.image = "broken";
  runs_ = expand(exp_);
  FakeBackend backend;
  auto summary = ExperimentRunner(artifacts_, backend, options()).run(exp_, runs_);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->total, 8);
  EXPECT_EQ(summary->failed, 8);
  EXPECT_EQ(backend.boots, 0);
  auto store = ResultStore::open(summary->dir);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(status_of(*store, "ok-a"), "image-failed");
  EXPECT_EQ(status_of(*store, "hangs"), "image-failed");
  EXPECT_EQ(status_of(*store, "ok-a", "broken"), "build-failed");
}

}  // namespace
}  // namespace foliolab
