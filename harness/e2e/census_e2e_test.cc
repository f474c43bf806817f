// End-to-end folio census (docs/evidence.md "Folio census") on a real x86_64 guest booted with the
// quickstart's small kernel (6.12 + mthp-vmstat, cached like every e2e test's; it has
// CONFIG_PROC_PAGE_MONITOR, so the census adds no kernel config): `fault 64M` faulted in 4K
// pages, in 64K mTHP and in PMD THPs, each census taken by the agent at the workload's peak.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/backend.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "protocol/run_report.h"
#include "results/store.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/cache_root.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

// The 64M region is 2M-aligned (align: 2M) so that THP `enabled: always` maps it by PMDs; the
// small kernel's THP default is `madvise`, so 4K and 64K fault no PMD THPs.
constexpr const char* kCensusYaml = R"(name: e2e-census
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {cpus: 1, memory: 1G, accel: tcg}
knobs:
  "4K": {hugepages-64kB/enabled: never}
  "64K": {hugepages-64kB/enabled: always}
  "PMD": {enabled: always, hugepages-64kB/enabled: never}
workloads:
  - name: fault
    params: {size: 64M, align: 2M}
repeat: 2
evidence: {census: true}
timeout: 600
)";

constexpr uint64_t kRegion = 64ull << 20;

struct Censused {
  RunRecord record;
  std::vector<RepResult> reps;  // the records file read again: every mapping's census
};

std::vector<Censused> run_census(const Experiment& exp, const fs::path& results) {
  RealProcessRunner proc;
  QemuBackend backend(proc, {.cache_dir = cache_root()});
  BuildingArtifactProvider artifacts(proc, {.data_root = source_dir(),
                                            .spec_dir = fs::path(exp.file).parent_path(),
                                            .cache = cache_root()});
  ExperimentRunner runner(artifacts, backend, {.data_root = source_dir(), .results_root = results});
  auto summary = runner.run(exp, expand(exp));
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (!summary.ok()) return {};
  auto store = ResultStore::open(summary->dir);
  auto records = store->load_all();
  EXPECT_TRUE(records.ok());
  std::vector<Censused> out;
  for (RunRecord& r : *records) {
    auto bytes = read_file(store->run_dir(r.id.run_id) / r.artifacts.records);
    EXPECT_TRUE(bytes.ok()) << r.id.run_id;
    RunReport report = parse_run_report(bytes.ok() ? *bytes : "", -1);
    out.push_back({std::move(r), std::move(report.reps)});
  }
  return out;
}

const Censused* find(const std::vector<Censused>& runs, const std::string& knobs) {
  for (const Censused& c : runs) {
    if (c.record.id.knob_set.name == knobs) return &c;
  }
  return nullptr;
}

// The census of the 64M region (the one mapping of that size), or nullptr.
const CensusMapping* region(const RepResult& rep) {
  for (const CensusMapping& m : rep.census) {
    if (m.end - m.start == kRegion) return &m;
  }
  return nullptr;
}

// Each mapping's census sums to its Rss within one page; the totals agree.
void expect_sums_to_rss(const Censused& run) {
  for (const RepResult& rep : run.reps) {
    ASSERT_FALSE(rep.census.empty());
    for (const CensusMapping& m : rep.census) {
      EXPECT_LE(std::llabs(m.rss_kb - m.counted_kb), 4) << m.name << " " << m.detail;
    }
    EXPECT_LE(std::abs(rep.metrics.at("census.rss_kb") - rep.metrics.at("census.counted_kb")),
              4.0 * static_cast<double>(rep.census.size()));
    fmt::print(stderr, "census {} rep {}: {} mappings, Rss {} kB, counted {} kB; region: {}\n",
               run.record.id.knob_set.name, rep.rep, rep.census.size(),
               rep.metrics.at("census.rss_kb"), rep.metrics.at("census.counted_kb"),
               region(rep) ? region(rep)->detail : "(none)");
  }
}

TEST(E2ECensus, FoliosBySizeAt4K64KAndPmd) {
  const fs::path dir = fresh_test_dir("foliolab-e2e-census");
  ASSERT_TRUE(write_file_atomic(dir / "census.yaml", kCensusYaml).ok());
  auto exp = load_experiment((dir / "census.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const std::vector<Censused> runs = run_census(*exp, dir / "results");
  ASSERT_EQ(runs.size(), 3u);
  for (const char* knobs : {"4K", "64K", "PMD"}) {
    SCOPED_TRACE(knobs);
    const Censused* run = find(runs, knobs);
    ASSERT_TRUE(run);
    ASSERT_EQ(run->record.status, "ok") << run->record.reason;
    ASSERT_EQ(run->reps.size(), 2u);
    expect_sums_to_rss(*run);
    for (const RepResult& rep : run->reps) {
      const CensusMapping* m = region(rep);
      ASSERT_TRUE(m);
      const std::string k = knobs;
      if (k == "4K") {
        EXPECT_EQ(m->detail, "anon.4K=16384/65536");
        EXPECT_EQ(rep.metrics.at("census.anon.64K.folios"), 0);
        EXPECT_EQ(rep.metrics.at("census.anon.2M.pmd_mapped"), 0);
      } else if (k == "64K") {
        EXPECT_EQ(m->detail, "anon.64K=1024/65536");
        // The region's 1024, and none elsewhere: the stack and heap fault a page at a time.
        EXPECT_EQ(rep.metrics.at("census.anon.64K.folios"), 1024);
        EXPECT_EQ(rep.metrics.at("census.anon.64K.kb"), 65536);
      } else {
        EXPECT_EQ(m->detail, "anon.2M=32/65536");
        EXPECT_EQ(rep.metrics.at("census.anon.2M.pmd_mapped"), 32);
        EXPECT_EQ(rep.metrics.at("census.anon.2M.folios"), 32);
        EXPECT_EQ(rep.metrics.at("census.anon.64K.folios"), 0);
      }
      EXPECT_EQ(rep.metrics.at("census.anon.partial"), 0);
    }
  }
}

}  // namespace
}  // namespace foliolab
