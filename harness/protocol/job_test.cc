#include "protocol/job.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

Experiment experiment() {
  Experiment e;
  e.name = "t";
  e.repeat = 3;
  e.kernels.push_back({});
  KnobSet ks;
  ks.name = "64K";
  ks.knobs = {{"hugepages-64kB/enabled", "always"}};
  ks.sysctls = {{"vm/drop_caches", "2"}};
  e.knob_sets.push_back(ks);
  WorkloadSpec w;
  w.name = "fault";
  w.label = "fault";
  w.params = {{"size", "64M"}, {"prctl_thp_disable", "true"}};
  e.workloads.push_back(w);
  return e;
}

TEST(Job, RendersKnobsSysctlsWorkloadAndArgs) {
  Experiment e = experiment();
  foliolab::Run r;
  r.id = "x86_64.k.64k.fault.12345678";
  auto job = render_job(e, r);
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_EQ(*job,
            "foliolab-job 1\n"
            "run_id x86_64.k.64k.fault.12345678\n"
            "repeat 3\n"
            "knob hugepages-64kB/enabled always\n"
            "sysctl vm/drop_caches 2\n"
            "workload fault\n"
            "arg size 64M\n"
            "prctl_thp_disable 1\n");
}

TEST(Job, CustomWorkloadExecsTheShippedProgramWithRawArguments) {
  Experiment e = experiment();
  e.workloads[0].name = "custom";
  e.workloads[0].label = "probe";
  e.workloads[0].params = {{"source", "probe.c"}, {"args", "-n 5  --fast"}};
  foliolab::Run r;
  r.id = "id";
  auto job = render_job(e, r);
  ASSERT_TRUE(job.ok());
  EXPECT_NE(job->find("workload custom\nexec /job/bin/custom\nargv -n\nargv 5\nargv --fast\n"),
            std::string::npos)
      << *job;
  EXPECT_EQ(job->find("probe.c"), std::string::npos);
}

TEST(Job, TapProgramsMayExitNonZeroAndOutputStaysOnTheHost) {
  Experiment e = experiment();
  e.workloads[0].name = "custom";
  e.workloads[0].label = "suite";
  e.workloads[0].params = {{"source", "suite.c"}, {"output", "tap"}, {"prctl_thp_disable", "on"}};
  foliolab::Run r;
  r.id = "id";
  auto job = render_job(e, r);
  ASSERT_TRUE(job.ok());
  EXPECT_NE(job->find("exec /job/bin/custom\nnonzero_exit_ok 1\nprctl_thp_disable 1\n"),
            std::string::npos)
      << *job;
  EXPECT_EQ(job->find("output"), std::string::npos);
  e.workloads[0].params = {{"source", "suite.c"}, {"output", "regex"}};
  EXPECT_EQ(render_job(e, r)->find("nonzero_exit_ok"), std::string::npos);
}

// Adaptive repetitions: `repeat` stays the minimum; the watched metrics are the gate rules'
// timings that apply to the run, then the workload's primary one (fault: cpu_s); counts and
// rules for other runs are left out.
TEST(Job, AdaptiveRepetitionsNameTheWatchedMetrics) {
  Experiment e = experiment();
  e.adaptive = AdaptiveRepeat{.max = 30, .ci = 0.02};
  e.warmup = 1;
  GateRule wall{.metric = "wall_s"}, faults{.metric = "faults"}, other{.metric = "user_s"};
  other.runs.knobs = "4K";
  e.gate_rules = {wall, faults, other, GateRule{.metric = "sys_s"}};
  foliolab::Run r;
  r.id = "id";
  auto job = render_job(e, r);
  ASSERT_TRUE(job.ok());
  EXPECT_NE(
      job->find("run_id id\nrepeat 3\nrepeat_max 30\nrepeat_ci 0.02\n"
                "repeat_metric wall_s\nrepeat_metric sys_s\nrepeat_metric cpu_s\nwarmup 1\nknob "),
      std::string::npos)
      << *job;
  // A fixed count with a warm-up rep: no adaptive lines.
  e.adaptive.reset();
  EXPECT_NE(render_job(e, r)->find("repeat 3\nwarmup 1\nknob "), std::string::npos);
  // A workload with no timing to watch does its minimum.
  e.adaptive = AdaptiveRepeat{.max = 30, .ci = 0.02};
  e.gate_rules.clear();
  e.workloads[0].name = "zero-page";
  e.workloads[0].params.clear();
  EXPECT_EQ(render_job(e, r)->find("repeat_"), std::string::npos);
}

TEST(Job, RefusesValuesThatWouldBreakTheLineFormat) {
  Experiment e = experiment();
  e.knob_sets[0].knobs = {{"enabled", "always\nknob defrag never"}};
  foliolab::Run r;
  r.id = "id";
  auto job = render_job(e, r);
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.error().message.find("knob enabled"), std::string::npos) << job.error().message;
}

// machine.image: the agent mounts the Debian root filesystem from the first virtio-blk disk
// (backend/qemu_args.h); an initramfs run's job has no such line.
TEST(Job, RootfsLineOnlyWithAMachineImage) {
  Experiment e = experiment();
  foliolab::Run r;
  r.id = "x86_64.k.64k.fault.12345678";
  auto plain = render_job(e, r);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->find("rootfs"), std::string::npos) << *plain;
  e.machine.image = "debian-redis";
  auto job = render_job(e, r);
  ASSERT_TRUE(job.ok()) << job.error().message;
  // The same job with one line more, before the workload's.
  std::string expected = *plain;
  expected.insert(expected.find("workload fault\n"), "rootfs /dev/vda\n");
  EXPECT_EQ(*job, expected);
}

}  // namespace
}  // namespace foliolab
