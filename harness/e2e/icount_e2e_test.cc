// End-to-end proof that instruction-time (machine.timing: icount) does not depend on the host's
// load: the same x86_64 icount run (the quickstart kernel, cached like every e2e test's) alone
// and then beside two busy-looping host processes gives the same `fault` timings; and that on the
// quickstart's arm64 64K mTHP shape the reps of cpu_s agree within 1 % (issue 48 saw them
// alternate 3.3 % apart).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/backend.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/cache_root.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

// 256M faulted in 4K pages, 5 reps in one boot. Measured here in two runs of this test: the
// means of wall_s (the guest clock, which counts instructions) of the two boots agreed to
// 0.001 % (its reps within a boot vary 0.03 %), those of sys_s to 0.4 % and 1.0 % (the kernel
// splits CPU time into user and system by sampled ticks). The tolerances, 0.1 % and 2 %, are
// relative and in guest time, which under icount does not depend on the host's speed. Meanwhile
// the hogs made the boot 2.6 to 2.8 times longer in host time.
// One icount `fault` run of the quickstart's kernel: ARCH, a knob set, SIZE and the repeat lines.
std::string icount_yaml(const std::string& arch, const std::string& knobs, const std::string& size,
                        const std::string& repeat) {
  return fmt::format(R"(name: e2e-icount
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [{}]
machine: {{cpus: 1, memory: 1G, accel: tcg, timing: icount}}
knobs:
  {}
workloads:
  - name: fault
    params: {{size: {}, threads: 1, mapping: anon}}
{}
timeout: 300
)",
                     arch, knobs, size, repeat);
}
const std::string kIcountYaml =
    icount_yaml("x86_64", "\"4K\": {hugepages-64kB/enabled: never}", "256M", "repeat: 5");
constexpr double kWallTolerance = 0.001;
constexpr double kSysTolerance = 0.02;

struct Timings {
  double sys_s = 0, wall_s = 0, boot_seconds = 0;
};

// The experiment's one run, booted here; its record (nullopt, with the failure, when none).
std::optional<RunRecord> run_alone(const Experiment& exp, const fs::path& results) {
  RealProcessRunner proc;
  QemuBackend backend(proc, {.cache_dir = cache_root()});
  BuildingArtifactProvider artifacts(proc, {.data_root = source_dir(),
                                            .spec_dir = fs::path(exp.file).parent_path(),
                                            .cache = cache_root()});
  ExperimentRunner runner(artifacts, backend, {.data_root = source_dir(), .results_root = results});
  auto summary = runner.run(exp, expand(exp));
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (!summary.ok()) return std::nullopt;
  EXPECT_EQ(summary->failed, 0);
  auto records = ResultStore::open(summary->dir)->load_all();
  EXPECT_TRUE(records.ok() && records->size() == 1u);
  if (!records.ok() || records->size() != 1u) return std::nullopt;
  return records->front();
}

Timings run_once(const Experiment& exp, const fs::path& results) {
  Timings t;
  const std::optional<RunRecord> record = run_alone(exp, results);
  if (!record) return t;
  const RunRecord& r = *record;
  EXPECT_EQ(r.provenance.timing, "icount");
  EXPECT_NE(r.provenance.command.find("-icount shift=0,sleep=off"), std::string::npos)
      << r.provenance.command;
  EXPECT_EQ(r.reps.size(), 5u);
  for (const Repetition& rep : r.reps) {
    t.sys_s += rep.metrics.at("sys_s") / r.reps.size();
    t.wall_s += rep.metrics.at("wall_s") / r.reps.size();
  }
  t.boot_seconds = r.provenance.boot_seconds;
  return t;
}

// Two child processes that spin until killed (the host has two cores).
std::vector<pid_t> start_hogs() {
  std::vector<pid_t> hogs;
  for (int i = 0; i < 2; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    if (pid > 0) hogs.push_back(pid);
  }
  return hogs;
}

// Kills the hogs; the CPU seconds they used.
double stop_hogs(const std::vector<pid_t>& hogs) {
  for (pid_t pid : hogs) ::kill(pid, SIGKILL);
  for (pid_t pid : hogs) ::waitpid(pid, nullptr, 0);
  struct rusage ru {};
  ::getrusage(RUSAGE_CHILDREN, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
}

TEST(E2EIcount, FaultTimingsAloneAndBesideACpuHogAgree) {
  const fs::path dir = fresh_test_dir("foliolab-e2e-icount");
  ASSERT_TRUE(write_file_atomic(dir / "icount.yaml", kIcountYaml).ok());
  auto exp = load_experiment((dir / "icount.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const Timings alone = run_once(*exp, dir / "alone");
  const std::vector<pid_t> hogs = start_hogs();
  ASSERT_EQ(hogs.size(), 2u);
  const Timings loaded = run_once(*exp, dir / "beside");
  const double hog_cpu_s = stop_hogs(hogs);
  fmt::print(
      stderr,
      "icount fault 256M 4K, mean of 5 reps: alone sys_s {:.6f} wall_s {:.6f} (boot {:.1f}s); "
      "beside 2 hogs ({:.0f} CPU s) sys_s {:.6f} wall_s {:.6f} (boot {:.1f}s)\n",
      alone.sys_s, alone.wall_s, alone.boot_seconds, hog_cpu_s, loaded.sys_s, loaded.wall_s,
      loaded.boot_seconds);
  // The hogs really competed for the host: they used CPU time for most of the loaded boot.
  EXPECT_GT(hog_cpu_s, 0.5 * loaded.boot_seconds);
  ASSERT_GT(alone.sys_s, 0);
  ASSERT_GT(alone.wall_s, 0);
  EXPECT_LE(std::abs(loaded.sys_s / alone.sys_s - 1), kSysTolerance);
  EXPECT_LE(std::abs(loaded.wall_s / alone.wall_s - 1), kWallTolerance);
  fs::remove_all(dir);
}

// The quickstart's arm64 64K mTHP run under icount, with a warm-up rep and 6 measured. Measured
// here (2026-12-07, 25 boots of this shape, idle and beside two hogs and a dd loop, on this
// commit's code and on 203f423's, the same kernel): every rep's cpu_s in 0.008803-0.008823 s
// (CV 0.07 %), never the 0.00909 s mode issue 48 reported. sys_s is not asserted: it is cpu_s cut
// by sampled ticks, and a rep in about 40 has a tick land in the touch loop, splitting it about
// half to user_s (docs/backends.md, "Timing modes").
TEST(E2EIcount, Arm64Mthp64KCpuTimeRepsAgreeWithinOnePercent) {
  const fs::path dir = fresh_test_dir("foliolab-e2e-icount-arm64");
  const std::string yaml = icount_yaml("arm64", "\"64K mTHP\": {hugepages-64kB/enabled: always}",
                                       "64M", "repeat: 6\nwarmup: 1");
  ASSERT_TRUE(write_file_atomic(dir / "icount.yaml", yaml).ok());
  auto exp = load_experiment((dir / "icount.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const std::optional<RunRecord> record = run_alone(*exp, dir / "results");
  ASSERT_TRUE(record.has_value());
  const RunRecord& r = *record;
  std::vector<double> cpu;
  for (const Repetition& rep : r.reps) {
    if (!rep.warmup) cpu.push_back(rep.metrics.at("cpu_s"));
  }
  ASSERT_EQ(cpu.size(), 6u);
  double mean = 0, ss = 0;
  for (double x : cpu) mean += x / cpu.size();
  for (double x : cpu) ss += (x - mean) * (x - mean);
  const double cv = std::sqrt(ss / (cpu.size() - 1)) / mean;
  const auto [lo, hi] = std::minmax_element(cpu.begin(), cpu.end());
  fmt::print(stderr, "icount arm64 fault 64M 64K mTHP, 6 reps: cpu_s {:.6f}..{:.6f}, CV {:.3f} %\n",
             *lo, *hi, 100 * cv);
  EXPECT_GT(r.reps.front().deltas.at("mthp.64kB.anon_fault_alloc"), 0);
  EXPECT_LE(cv, 0.01);
  EXPECT_LE(*hi / *lo - 1, 0.01);  // no second mode: every rep within 1 % of every other
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
