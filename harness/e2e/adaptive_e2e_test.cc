// Adaptive repetitions end to end (issue 18): `foliolab run` of fault 16M on x86_64 with
// `repeat: {min: 3, max: 12, ci: 50%}` and a warm-up rep. ±50 % of the mean of cpu_s is a target
// any quiet guest reaches within a few reps whatever the machine's speed, so the agent must stop
// before max and the record say so. Uses the quickstart kernel (cached in ~/.cache/foliolab).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

#include "results/store.h"
#include "testing/cli_binary.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// One x86_64 run of fault on the quickstart kernel: `machine`, `size` and the repeat lines vary.
std::string adaptive_yaml(const std::string& name, const std::string& machine,
                          const std::string& size, const std::string& repeat, int timeout) {
  return fmt::format(R"(name: {}
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {{{}}}
knobs:
  4K: {{hugepages-64kB/enabled: never}}
workloads:
  - name: fault
    params: {{size: {}}}
{}
timeout: {}
)",
                     name, machine, size, repeat, timeout);
}

struct AdaptiveSession {
  std::string output;  // foliolab run's stdout and stderr
  std::vector<RunRecord> records;
};

// `foliolab run --quiet` of the experiment `yaml` named `name` into a fresh results root.
void run_session(const std::string& name, const std::string& yaml, AdaptiveSession* out) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("foliolab-{}-{}", name, ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  ASSERT_TRUE(write_file_atomic(dir / "adaptive.yaml", yaml).ok());
  RealProcessRunner proc;
  auto run = proc.run({.argv = {cli_binary(), "run", (dir / "adaptive.yaml").string(), "--results",
                                (dir / "results").string(), "--quiet"},
                       .log_path = dir / "run.log",
                       .capture = true,
                       .timeout = 90min});
  ASSERT_TRUE(run.ok()) << run.describe() << "\n" << run.output;
  out->output = run.output;
  auto session = ResultStore::latest(dir / "results", name);
  ASSERT_TRUE(session);
  auto records = ResultStore::open(*session)->load_all();
  ASSERT_TRUE(records.ok()) << records.error().message;
  out->records = std::move(*records);
  fs::remove_all(dir);
}

// Under icount the guest's clocks count instructions, so a 2 % target on fault 256M's cpu_s
// (CV under 0.1 % there) is reached at the minimum on any machine; the issue's
// `repeat: {min: 3, max: 30, ci: 2%}`.
TEST(E2EAdaptive, IcountFault256MReachesTwoPercentBeforeMax) {
  AdaptiveSession s;
  run_session("e2e-adaptive-icount",
              adaptive_yaml("e2e-adaptive-icount", "cpus: 1, memory: 1G, timing: icount", "256M",
                            "repeat: {min: 3, max: 30, ci: 2%}", 1800),
              &s);
  if (HasFatalFailure()) return;
  ASSERT_EQ(s.records.size(), 1u);
  const RunRecord& r = s.records.front();
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.provenance.timing, "icount");
  ASSERT_TRUE(r.repeat_stop);
  EXPECT_EQ(r.repeat_stop->reason, RepeatStopReason::kReached);
  EXPECT_LT(r.repeat_stop->n, 30);
  ASSERT_EQ(r.repeat_stop->half_width.size(), 1u);
  ASSERT_TRUE(r.repeat_stop->half_width[0].second);
  EXPECT_LE(*r.repeat_stop->half_width[0].second, 0.02);
  EXPECT_NE(s.output.find(fmt::format("n={} (reached ±2 %)", r.repeat_stop->n)), std::string::npos)
      << s.output;
}

TEST(E2EAdaptive, Fault16MReachesFiftyPercentBeforeMax) {
  AdaptiveSession s;
  run_session("e2e-adaptive",
              adaptive_yaml("e2e-adaptive", "cpus: 1, memory: 1G", "16M",
                            "repeat: {min: 3, max: 12, ci: 50%}\nwarmup: 1", 900),
              &s);
  if (HasFatalFailure()) return;
  ASSERT_EQ(s.records.size(), 1u);
  const RunRecord& r = s.records.front();
  ASSERT_TRUE(r.ok()) << r.reason;
  ASSERT_TRUE(r.repeat_stop);
  const RepeatStop& stop = *r.repeat_stop;
  EXPECT_EQ(stop.reason, RepeatStopReason::kReached);
  EXPECT_GE(stop.n, 3);
  EXPECT_LT(stop.n, 12);
  EXPECT_EQ(stop.warmup, 1);
  EXPECT_DOUBLE_EQ(stop.target, 0.5);
  ASSERT_EQ(stop.half_width.size(), 1u);
  EXPECT_EQ(stop.half_width[0].first, "cpu_s");
  ASSERT_TRUE(stop.half_width[0].second);
  EXPECT_LE(*stop.half_width[0].second, 0.5);
  // Every rep is kept, the warm-up one marked and left out of the statistics.
  ASSERT_EQ(r.reps.size(), static_cast<size_t>(stop.n + 1));
  EXPECT_TRUE(r.reps[0].warmup);
  EXPECT_FALSE(r.reps[1].warmup);
  EXPECT_EQ(r.samples("cpu_s").size(), static_cast<size_t>(stop.n));
  // The report says why n is what it is.
  EXPECT_NE(s.output.find(fmt::format("n={} (reached ±50 %)", stop.n)), std::string::npos)
      << s.output;
}

}  // namespace
}  // namespace foliolab
