#include "runner/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/loader.h"
#include "model/matrix.h"
#include "testing/fake_artifacts.h"
#include "testing/fake_backend.h"
#include "testing/fake_experiment.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class PlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-planner");
    ASSERT_TRUE(write_file_atomic(root_ / "fake.yaml", kFakeExperimentYaml).ok());
    auto exp = load_experiment((root_ / "fake.yaml").string());
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    exp_ = *exp;
    runs_ = expand(exp_);
    status_ = make_line_status([this](const std::string& line) { lines_.push_back(line); });
  }
  void TearDown() override { fs::remove_all(root_); }
  Result<Session> session(SessionOptions opt = {}) {
    opt.results_root = root_ / "results";
    return Session::open(exp_, runs_, opt, *status_);
  }
  bool said(const std::string& line) const {
    return std::find(lines_.begin(), lines_.end(), line) != lines_.end();
  }
  fs::path root_;
  Experiment exp_;
  std::vector<foliolab::Run> runs_;
  std::vector<std::string> lines_;
  std::unique_ptr<RunStatus> status_;
  FakeArtifacts artifacts_;
  FakeBackend backend_;
};

TEST_F(PlannerTest, EachArtifactIsMadeOnceAndAFailedBuildIsRecordedBeforeAnyBoot) {
  auto s = session();
  ASSERT_TRUE(s.ok()) << s.error().message;
  Planner planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_);
  auto todo = planner.plan(runs_, *s);
  ASSERT_TRUE(todo.ok()) << todo.error().message;
  ASSERT_EQ(todo->size(), 4u);                      // the good kernel's runs
  EXPECT_EQ((*todo)[0].kernel, (*todo)[3].kernel);  // one build shared
  EXPECT_EQ((*todo)[0].accel.reason, "auto: fake host has no KVM");
  EXPECT_EQ(artifacts_.kernel_builds, 2);
  EXPECT_EQ(artifacts_.image_builds, 1);
  EXPECT_EQ(artifacts_.workload_files_asked, 1);
  EXPECT_EQ(backend_.accel_requests, 1);
  EXPECT_EQ(backend_.boots, 0);
  EXPECT_TRUE(said("accel x86_64: tcg (auto: fake host has no KVM)"));
  EXPECT_EQ(s->summary().failed, 4);
  for (const foliolab::Run& run : runs_) {
    if (exp_.kernels[run.kernel].name != "broken") continue;
    auto record = s->store().load_record(run.id);
    ASSERT_TRUE(record.ok()) << record.error().message;
    EXPECT_EQ(record->status, "build-failed");
    EXPECT_EQ(record->failure, FailureClass::kHost);
    EXPECT_TRUE(said("  " + run.id + ": build-failed: kernel broken: `make bzImage` failed"));
  }
}

TEST_F(PlannerTest, RunsKeptFromAnEarlierSessionAreCountedNotPlanned) {
  auto first = session();
  ASSERT_TRUE(first.ok());
  Planner planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_);
  ASSERT_TRUE(planner.plan(runs_, *first).ok());
  auto resumed = session({.resume_dir = first->dir()});
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  auto todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *resumed);
  ASSERT_TRUE(todo.ok());
  EXPECT_EQ(todo->size(), 4u);  // the good kernel's runs have no record yet
  EXPECT_EQ(resumed->summary().skipped, 4);
  EXPECT_EQ(resumed->summary().failed, 4);
  EXPECT_EQ(artifacts_.kernel_builds, 3);  // the broken kernel is not built again

  auto retried = session({.resume_dir = first->dir(), .retry_failed = true});
  ASSERT_TRUE(retried.ok());
  todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *retried);
  ASSERT_TRUE(todo.ok());
  EXPECT_EQ(retried->summary().skipped, 0);
  EXPECT_EQ(retried->summary().failed, 4);  // failed again, recorded again
}

TEST_F(PlannerTest, ABackendThatBuildsNoKernelRunsTheHostsOwn) {
  auto s = session();
  ASSERT_TRUE(s.ok());
  auto todo =
      Planner(exp_, artifacts_, backend_, BackendNeeds{.kernel = false}, *status_).plan(runs_, *s);
  ASSERT_TRUE(todo.ok());
  EXPECT_EQ(todo->size(), 8u);  // "broken" is never built
  EXPECT_EQ(artifacts_.kernel_builds, 0);
}

TEST_F(PlannerTest, IcountUnderKvmIsRefusedBeforeAnythingIsBuiltNamingTheRun) {
  exp_.machine.timing = TimingMode::kIcount;
  exp_.machine.timing_loc = {.file = "fake.yaml", .line = 3, .column = 11};
  exp_.machine.accel = AccelChoice::kKvm;
  auto s = session();
  ASSERT_TRUE(s.ok());
  auto todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *s);
  ASSERT_FALSE(todo.ok());
  EXPECT_EQ(todo.error().kind, ErrorKind::kInput);
  EXPECT_EQ(todo.error().message,
            "fake.yaml:3:11: machine.timing: icount: instruction-time needs TCG, but accel is kvm "
            "(use accel: tcg or auto): refused for run " +
                runs_.front().id + " and 7 more run(s)");
  EXPECT_EQ(artifacts_.kernel_builds, 0);
  EXPECT_EQ(backend_.accel_requests, 0);
}

TEST_F(PlannerTest, IcountOnABackendThatCannotPassItIsRefused) {
  exp_.machine.timing = TimingMode::kIcount;  // as --timing icount sets it: no file location
  exp_.machine.backend = "host";
  const std::vector<foliolab::Run> one(runs_.begin(), runs_.begin() + 1);
  auto st = check_timing_mode(exp_, one, BackendNeeds{.kernel = false, .icount = false});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "--timing icount: backend host cannot run guests under QEMU's -icount (only backend "
            "qemu can): refused for run " +
                one.front().id);
  exp_.machine.timing = TimingMode::kWall;  // wall timing runs anywhere
  EXPECT_TRUE(check_timing_mode(exp_, one, BackendNeeds{.icount = false}).ok());
}

TEST_F(PlannerTest, IcountWithAutoAccelAsksForTcgAndSaysWhy) {
  exp_.machine.timing = TimingMode::kIcount;
  std::vector<AccelChoice> asked;
  backend_.on_accel = [&](const AccelRequest& req) -> Result<AccelVerdict> {
    asked.push_back(req.choice);
    return AccelVerdict{Accel::kTcg, "tcg requested"};
  };
  auto s = session();
  ASSERT_TRUE(s.ok());
  auto todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *s);
  ASSERT_TRUE(todo.ok()) << todo.error().message;
  EXPECT_EQ(asked, std::vector<AccelChoice>{AccelChoice::kTcg});  // no KVM probe
  ASSERT_FALSE(todo->empty());
  EXPECT_EQ((*todo)[0].accel.accel, Accel::kTcg);
  EXPECT_EQ((*todo)[0].accel.reason, "auto: machine.timing icount forces TCG (instruction-time)");
  exp_.machine.accel = AccelChoice::kTcg;  // an explicit tcg keeps the backend's own reason
  auto again = session();
  ASSERT_TRUE(again.ok());
  todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *again);
  ASSERT_TRUE(todo.ok());
  EXPECT_EQ((*todo)[0].accel.reason, "tcg requested");
}

// machine.image (issue 20): the recipe's root filesystem is made once per arch; one that cannot
// be made fails its runs as image-failed with the builder's words, recorded before any boot.
TEST_F(PlannerTest, ARootfsThatCannotBeBuiltMakesItsRunsImageFailed) {
  exp_.machine.image = "broken";
  runs_ = expand(exp_);
  auto s = session();
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *s);
  ASSERT_TRUE(todo.ok()) << todo.error().message;
  EXPECT_TRUE(todo->empty());
  EXPECT_EQ(artifacts_.rootfs_builds, 1);
  EXPECT_EQ(backend_.boots, 0);
  EXPECT_EQ(s->summary().failed, 8);
  const std::string reason =
      "images/broken.yaml:3:11: packages[0]: Debian bookworm has no package 'nosuch'";
  for (const foliolab::Run& run : runs_) {
    auto record = s->store().load_record(run.id);
    ASSERT_TRUE(record.ok()) << record.error().message;
    if (exp_.kernels[run.kernel].name == "broken") {
      EXPECT_EQ(record->status, "build-failed");  // the kernel is the first thing missing
      continue;
    }
    EXPECT_EQ(record->status, "image-failed");
    EXPECT_EQ(record->reason, reason);
    EXPECT_EQ(record->failure, FailureClass::kHost);
    EXPECT_EQ(record->provenance.kernel_build_id, "b1d0000000000001");  // it was built
    EXPECT_TRUE(said("  " + run.id + ": image-failed: " + reason)) << run.id;
  }
}

TEST_F(PlannerTest, ARootfsFailingOnOneArchLeavesTheOtherArchsRuns) {
  class ArmRootfsFails : public FakeArtifacts {
   public:
    Result<RootfsArtifact> rootfs(const std::string& recipe, Arch arch) override {
      if (arch == Arch::kArm64) {
        ++rootfs_builds;
        return make_env_error("image debian-redis (arm64): mmdebstrap failed (exit status 1)");
      }
      return FakeArtifacts::rootfs(recipe, arch);
    }
  } artifacts;
  exp_.archs = {Arch::kX86_64, Arch::kArm64};
  exp_.machine.image = "debian-redis";
  runs_ = expand(exp_);
  ASSERT_EQ(runs_.size(), 16u);
  auto s = session();
  ASSERT_TRUE(s.ok()) << s.error().message;
  Planner planner(exp_, artifacts, backend_, BackendNeeds{}, *status_);  // owns the artifacts
  auto todo = planner.plan(runs_, *s);
  ASSERT_TRUE(todo.ok()) << todo.error().message;
  ASSERT_EQ(todo->size(), 4u);            // the good kernel's x86_64 runs
  EXPECT_EQ(artifacts.rootfs_builds, 2);  // once per arch
  for (const PreparedRun& p : *todo) {
    EXPECT_EQ(p.run->arch, Arch::kX86_64);
    ASSERT_NE(p.rootfs, nullptr);
    EXPECT_EQ(p.rootfs->disk, "/nonexistent/rootfs/debian-redis-x86_64.ext4");
    EXPECT_EQ(p.rootfs, (*todo)[0].rootfs);  // one artifact shared
  }
  int image_failed = 0;
  for (const foliolab::Run& run : runs_) {
    auto record = s->store().load_record(run.id);
    if (run.arch != Arch::kArm64 || exp_.kernels[run.kernel].name != "good") continue;
    ASSERT_TRUE(record.ok()) << record.error().message;
    EXPECT_EQ(record->status, "image-failed");
    EXPECT_EQ(record->reason, "image debian-redis (arm64): mmdebstrap failed (exit status 1)");
    ++image_failed;
  }
  EXPECT_EQ(image_failed, 4);
}

TEST_F(PlannerTest, EveryArchsImageIsMadeWhileTheFirstKernelBuilds) {
  // A kernel build that waits for both arches' images: without a second thread it would wait
  // for its own caller (the deadline only keeps a broken planner from hanging the test).
  class KernelWaitsForImages : public FakeArtifacts {
   public:
    Result<KernelArtifact> kernel(const KernelSpec& spec, Arch arch) override {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, std::chrono::seconds(60), [this] { return images_ == 2; }))
        ++kernels_before_images;
      return FakeArtifacts::kernel(spec, arch);
    }
    Result<ImageArtifact> image(Arch arch) override {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++images_;
      }
      cv_.notify_all();
      return FakeArtifacts::image(arch);
    }
    int kernels_before_images = 0;

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    int images_ = 0;
  } artifacts;
  exp_.archs = {Arch::kX86_64, Arch::kArm64};
  runs_ = expand(exp_);
  auto s = session();
  ASSERT_TRUE(s.ok()) << s.error().message;
  Planner planner(exp_, artifacts, backend_, BackendNeeds{}, *status_);
  auto todo = planner.plan(runs_, *s);
  ASSERT_TRUE(todo.ok()) << todo.error().message;
  EXPECT_EQ(artifacts.kernels_before_images, 0);
  EXPECT_EQ(artifacts.image_builds, 2);  // once per arch, none again for a run
  EXPECT_EQ(artifacts.kernel_builds, 4);
  ASSERT_EQ(todo->size(), 8u);
  for (const PreparedRun& p : *todo) {
    EXPECT_EQ(p.image->cpio, artifacts.base_cpio);
  }
}

TEST_F(PlannerTest, WithoutAMachineImageNoRootfsIsAskedFor) {
  auto s = session();
  ASSERT_TRUE(s.ok());
  auto todo = Planner(exp_, artifacts_, backend_, BackendNeeds{}, *status_).plan(runs_, *s);
  ASSERT_TRUE(todo.ok());
  ASSERT_FALSE(todo->empty());
  EXPECT_EQ(artifacts_.rootfs_builds, 0);
  for (const PreparedRun& p : *todo) EXPECT_EQ(p.rootfs, nullptr);
}

}  // namespace
}  // namespace foliolab
