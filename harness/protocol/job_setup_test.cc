// The job file's `setup` lines (a custom workload's params.setup, issue 20).
#include <gtest/gtest.h>

#include "protocol/job.h"

namespace foliolab {
namespace {

Experiment custom_with_setup() {
  Experiment e;
  e.name = "t";
  e.repeat = 1;
  e.kernels.push_back({});
  e.knob_sets.push_back({});
  WorkloadSpec w;
  w.name = "custom";
  w.label = "probe";
  w.params = {{"source", "[a.c, b.c]"},
              {"setup", "[mkdir -p '/tmp/a b', /job/bin/custom]"},
              {"build", "x"}};
  w.sources = {"a.c", "b.c"};
  w.setup = {{"mkdir", "-p", "/tmp/a b"}, {"/job/bin/custom"}};
  e.workloads.push_back(w);
  return e;
}

TEST(JobSetup, OneLinePerTokenNumberedByCommand) {
  Experiment e = custom_with_setup();
  foliolab::Run r;
  r.id = "id";
  auto job = render_job(e, r);
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_EQ(*job,
            "foliolab-job 1\nrun_id id\nrepeat 1\nworkload custom\nexec /job/bin/custom\n"
            "setup 0 mkdir\nsetup 0 -p\nsetup 0 /tmp/a b\nsetup 1 /job/bin/custom\n");
}

TEST(JobSetup, ATokenThatWouldBreakALineIsRefused) {
  Experiment e = custom_with_setup();
  e.workloads[0].setup = {{"echo", "a\nworkload fault"}};
  foliolab::Run r;
  r.id = "id";
  auto job = render_job(e, r);
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.error().message.find("not allowed in a job line: setup 0"), std::string::npos)
      << job.error().message;
}

// An image build's second stage: no workload, the root disk, the commands.
TEST(JobSetup, ASetupJobEntersTheRootAndRunsTheCommandsOnly) {
  auto job = render_setup_job(
      "stage2", {{"/bin/sh", "/foliolab-stage2/run", "install"}, {"env", "A=b c", "true"}});
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_EQ(*job,
            "foliolab-job 1\nrun_id stage2\nrootfs /dev/vda\nsetup 0 /bin/sh\n"
            "setup 0 /foliolab-stage2/run\nsetup 0 install\nsetup 1 env\nsetup 1 A=b c\n"
            "setup 1 true\n");
  auto bad = render_setup_job("stage2", {{"echo", "a\nworkload fault"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not allowed in a job line: setup 0 a"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace foliolab
