// End-to-end tests: real kernels built from Debian's linux-source-6.12 with patches/mthp-vmstat,
// real QEMU guests (TCG here). Kernels and images are cached (FOLIOLAB_CACHE or
// ~/.cache/foliolab), so every test shares the two quickstart kernels: a cold machine builds
// them once (about 10 + 7 minutes on 2 cores).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "guest/backend.h"
#include "analysis/expectations.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "runner/experiment_runner.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

const fs::path kRoot = FOLIOLAB_SOURCE_DIR;

struct Session {
  SessionSummary summary;
  std::vector<RunRecord> records;
};

void log_to_stderr(const std::string& s) { fmt::print(stderr, "{}\n", s); }

Session run_experiment(const Experiment& exp) {
  RealProcessRunner proc;
  QemuBackend backend(proc);
  BuildingArtifactProvider artifacts(proc, {.project_root = kRoot, .spec_dir = fs::path(exp.file).parent_path(),
                                            .cache = cache_root(), .log = log_to_stderr});
  const fs::path results = fs::temp_directory_path() / fmt::format("foliolab-e2e-{}", ::getpid());
  ExperimentRunner runner(artifacts, backend, {.project_root = kRoot, .results_root = results, .log = log_to_stderr});
  auto summary = runner.run(exp, expand(exp));
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  Session s;
  if (!summary.ok()) return s;
  s.summary = *summary;
  auto store = ResultStore::open(summary->dir);
  auto all = store->load_all();
  EXPECT_TRUE(all.ok());
  if (all.ok()) s.records = *all;
  return s;
}

const RunRecord* find(const Session& s, const std::string& arch, const std::string& knob_set) {
  for (const auto& r : s.records) {
    if (r.id.arch == arch && r.id.knob_set.name == knob_set) return &r;
  }
  return nullptr;
}

// The quickstart on both arches: 64K mTHP shows in the per-size stats and in the counter the
// patch series adds, with about 16x fewer minor faults; 4K allocates no 64K folios.
TEST(E2EQuickstart, BothArchesShow64KmTHPCounters) {
  auto exp = load_experiment((kRoot / "experiments/quickstart.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  Session s = run_experiment(*exp);
  ASSERT_EQ(s.summary.failed, 0);
  ASSERT_EQ(s.records.size(), 4u);
  for (const char* arch : {"x86_64", "arm64"}) {
    SCOPED_TRACE(arch);
    const RunRecord* r4 = find(s, arch, "4K");
    const RunRecord* r64 = find(s, arch, "64K mTHP");
    ASSERT_TRUE(r4 && r64);
    ASSERT_EQ(r4->status, "ok") << r4->reason;
    ASSERT_EQ(r64->status, "ok") << r64->reason;
    EXPECT_EQ(r64->provenance.accel, accel_name(choose_accel(*parse_arch(arch))));
    ASSERT_EQ(r4->reps.size(), 3u);
    ASSERT_EQ(r64->reps.size(), 3u);
    EXPECT_EQ(r64->provenance.guest.release.substr(0, 5), "6.12.");
    // The knob was read back as set.
    ASSERT_EQ(r64->knob_results.size(), 1u);
    EXPECT_EQ(r64->knob_results[0].readback, "always");
    for (size_t i = 0; i < 3; ++i) {
      const auto& a = r4->reps[i];
      const auto& b = r64->reps[i];
      EXPECT_EQ(a.deltas.at("mthp.64kB.anon_fault_alloc"), 0);
      EXPECT_GE(b.deltas.at("mthp.64kB.anon_fault_alloc"), 1000);  // 64 MiB / 64 KiB = 1024
      // The counter patches/mthp-vmstat adds agrees with the per-size stat.
      EXPECT_EQ(b.deltas.at("vmstat.mthp_anon_fault_alloc"), b.deltas.at("mthp.64kB.anon_fault_alloc"));
      EXPECT_EQ(a.deltas.at("vmstat.mthp_anon_fault_alloc"), 0);
      const double ratio = a.metrics.at("faults") / b.metrics.at("faults");
      EXPECT_GT(ratio, 14.0);
      EXPECT_LT(ratio, 17.0);
    }
  }
  // Nothing changed: asking again must not invoke make.
  RealProcessRunner proc;
  KernelBuilder builder(proc, {.project_root = kRoot, .spec_dir = kRoot / "experiments", .cache = cache_root()});
  for (Arch a : exp->archs) {
    auto k = builder.build(exp->kernels[0], a);
    ASSERT_TRUE(k.ok()) << k.error().message;
    EXPECT_TRUE(k->cache_hit);
  }
}

Experiment small_x86_experiment(const std::string& knob_sets_yaml, int timeout, const std::string& params) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("foliolab-e2e-yaml-{}", ::getpid());
  fs::create_directories(dir);
  const std::string yaml = fmt::format(R"(name: e2e-failures
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {{cpus: 1, memory: 1G}}
knobs:
{}
workloads:
  - name: fault
    params: {{{}}}
repeat: 2
timeout: {}
)", knob_sets_yaml, params, timeout);
  EXPECT_TRUE(write_file_atomic(dir / "e2e.yaml", yaml).ok());
  auto exp = load_experiment((dir / "e2e.yaml").string());
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

// A panicking guest ends QEMU with status 0: the run must still be failed, with the panic line
// and the console log kept, and the next run of the matrix must still happen.
TEST(E2EFailures, PanicAndUnknownKnobFailOnlyTheirRunsAndTheMatrixGoesOn) {
  Experiment exp = small_x86_experiment(
      "  panic:\n    cmdline: rdinit=/does-not-exist\n"
      "  unknown-knob:\n    hugepages-4kB/enabled: always\n"
      "  fine:\n    enabled: never\n",
      120, "size: 16M");
  Session s = run_experiment(exp);
  const RunRecord* panic = find(s, "x86_64", "panic");
  const RunRecord* unknown = find(s, "x86_64", "unknown-knob");
  const RunRecord* fine = find(s, "x86_64", "fine");
  ASSERT_TRUE(panic && unknown && fine);
  EXPECT_EQ(panic->status, "failed");
  EXPECT_EQ(panic->failure, FailureClass::kGuest);
  EXPECT_NE(panic->reason.find("Kernel panic"), std::string::npos) << panic->reason;
  EXPECT_TRUE(fs::exists(s.summary.dir / "runs" / panic->id.run_id / "console.log"));
  EXPECT_EQ(unknown->status, "failed");
  const std::string why = unknown->reason;
  EXPECT_NE(why.find("6.12.117"), std::string::npos) << why;
  EXPECT_NE(why.find("/sys/kernel/mm/transparent_hugepage/hugepages-4kB/enabled"), std::string::npos) << why;
  EXPECT_EQ(fine->status, "ok") << fine->reason;
}

TEST(E2EFailures, HungGuestIsKilledAtItsTimeoutAndItsConsoleKept) {
  // 1 GiB of 4K faults takes far longer than 6 s under TCG: the deadline must stop the guest.
  Experiment exp = small_x86_experiment("  slow:\n    enabled: never\n", 6, "size: 900M");
  const auto t0 = std::chrono::steady_clock::now();
  Session s = run_experiment(exp);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const RunRecord* slow = find(s, "x86_64", "slow");
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->status, "timed-out") << slow->reason;
  EXPECT_LT(took, 60.0);  // killed, not waited for (generous: this is a bound, not a timing claim)
  const fs::path console = s.summary.dir / "runs" / slow->id.run_id / "console.log";
  auto text = read_file(console);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("Linux version 6.12"), std::string::npos);
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

// Each seed cover letter's effect as an asserted experiment: every `expect:` in the YAML must
// hold (on both arches, and for 001 on a 64K-page arm64 kernel too).
void expect_seed_holds(const std::string& file) {
  auto exp = load_experiment((kRoot / "experiments/seeds" / file).string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_FALSE(exp->expectations.empty());
  Session s = run_experiment(*exp);
  EXPECT_EQ(s.summary.failed, 0);
  auto results = evaluate_expectations(*exp, s.records);
  ASSERT_EQ(results.size(), exp->expectations.size());
  for (const auto& r : results) {
    std::string details;
    for (const auto& d : r.details) details += "\n  " + d;
    EXPECT_TRUE(r.held) << r.name << details;
  }
}

TEST(E2ESeeds, S000AnonShmemMthpFaultsDropTenfold) { expect_seed_holds("000-anon-shmem-mthp.yaml"); }
TEST(E2ESeeds, S001AnonMthpSizeSweepCountsFolios) { expect_seed_holds("001-anon-mthp.yaml"); }
TEST(E2ESeeds, S002PrctlThpDisable) { expect_seed_holds("002-prctl-thp-disable.yaml"); }
TEST(E2ESeeds, S003ThpShrinkerSplitsUnderusedThps) { expect_seed_holds("003-thp-shrinker.yaml"); }
TEST(E2ESeeds, S004HugeZeroPageKeepsRssSmall) { expect_seed_holds("004-huge-zero-page.yaml"); }

}  // namespace
}  // namespace foliolab
