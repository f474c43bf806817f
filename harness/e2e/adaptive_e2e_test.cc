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

constexpr const char* kYaml = R"(name: e2e-adaptive
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {cpus: 1, memory: 1G}
knobs:
  4K: {hugepages-64kB/enabled: never}
workloads:
  - name: fault
    params: {size: 16M}
repeat: {min: 3, max: 12, ci: 50%}
warmup: 1
timeout: 900
)";

// Under icount the guest's clocks count instructions, so a 2 % target on fault 256M's cpu_s
// (CV under 0.1 % there) is reached at the minimum on any machine; the issue's
// `repeat: {min: 3, max: 30, ci: 2%}`.
constexpr const char* kIcountYaml = R"(name: e2e-adaptive-icount
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {cpus: 1, memory: 1G, timing: icount}
knobs:
  4K: {hugepages-64kB/enabled: never}
workloads:
  - name: fault
    params: {size: 256M}
repeat: {min: 3, max: 30, ci: 2%}
timeout: 1800
)";

TEST(E2EAdaptive, IcountFault256MReachesTwoPercentBeforeMax) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("foliolab-e2e-adaptive-icount-{}", ::getpid());
  fs::create_directories(dir);
  ASSERT_TRUE(write_file_atomic(dir / "adaptive.yaml", kIcountYaml).ok());
  RealProcessRunner proc;
  auto run = proc.run({.argv = {cli_binary(), "run", (dir / "adaptive.yaml").string(), "--results",
                                (dir / "results").string(), "--quiet"},
                       .log_path = dir / "run.log",
                       .capture = true,
                       .timeout = 90min});
  ASSERT_TRUE(run.ok()) << run.describe() << "\n" << run.output;
  auto session = ResultStore::latest(dir / "results", "e2e-adaptive-icount");
  ASSERT_TRUE(session);
  auto records = ResultStore::open(*session)->load_all();
  ASSERT_TRUE(records.ok() && records->size() == 1u);
  const RunRecord& r = records->front();
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.provenance.timing, "icount");
  ASSERT_TRUE(r.repeat_stop);
  EXPECT_EQ(r.repeat_stop->reason, RepeatStopReason::kReached);
  EXPECT_LT(r.repeat_stop->n, 30);
  ASSERT_EQ(r.repeat_stop->half_width.size(), 1u);
  ASSERT_TRUE(r.repeat_stop->half_width[0].second);
  EXPECT_LE(*r.repeat_stop->half_width[0].second, 0.02);
  EXPECT_NE(run.output.find(fmt::format("n={} (reached ±2 %)", r.repeat_stop->n)),
            std::string::npos)
      << run.output;
  fs::remove_all(dir);
}

TEST(E2EAdaptive, Fault16MReachesFiftyPercentBeforeMax) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("foliolab-e2e-adaptive-{}", ::getpid());
  fs::create_directories(dir);
  ASSERT_TRUE(write_file_atomic(dir / "adaptive.yaml", kYaml).ok());
  RealProcessRunner proc;
  const fs::path log = dir / "run.log";
  auto run = proc.run({.argv = {cli_binary(), "run", (dir / "adaptive.yaml").string(), "--results",
                                (dir / "results").string(), "--quiet"},
                       .log_path = log,
                       .capture = true,
                       .timeout = 60min});
  ASSERT_TRUE(run.ok()) << run.describe() << "\n" << run.output;
  auto session = ResultStore::latest(dir / "results", "e2e-adaptive");
  ASSERT_TRUE(session);
  auto records = ResultStore::open(*session)->load_all();
  ASSERT_TRUE(records.ok()) << records.error().message;
  ASSERT_EQ(records->size(), 1u);
  const RunRecord& r = records->front();
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
  EXPECT_NE(run.output.find(fmt::format("n={} (reached ±50 %)", stop.n)), std::string::npos)
      << run.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
