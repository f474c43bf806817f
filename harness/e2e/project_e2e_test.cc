// Projects end to end (issue 28): a folder of the user's own, made by `foliolab init`, outside
// the source tree, with a series of its own in patches/; `foliolab run` from that folder builds
// the kernel with that series, boots it and keeps the results in the project.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "results/store.h"
#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// A third patch on top of the mthp-vmstat series: a comment in mm/huge_memory.c, so the kernel
// is really rebuilt (one object and the link) from the project's own series.
constexpr const char* kOwnPatch = R"(From: Project User <user@localhost>
Subject: [PATCH 3/3] mm: huge_memory: a project's own patch

---
 mm/huge_memory.c | 1 +
 1 file changed, 1 insertion(+)

--- a/mm/huge_memory.c
+++ b/mm/huge_memory.c
@@ -2,6 +2,7 @@
 /*
  *  Copyright (C) 2009  Red Hat, Inc.
  */
+/* foliolab e2e: built from a project's own series (patches/mine) */
 
 #define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
 
)";

TEST(E2EProjects, AProjectsOwnSeriesIsBuiltBootedAndItsResultsKeptThere) {
  ScopedTestDir dir("project-e2e");
  auto init = run_cli({"init", "myproj"}, dir.path(), dir / "init.log");
  ASSERT_EQ(init.exit_code, 0) << init.output;
  const fs::path proj = dir / "myproj";
  const fs::path from = fs::path(source_dir()) / "patches/mthp-vmstat";
  fs::create_directories(proj / "patches/mine");
  std::string series;
  for (const auto& name : {"0001-mm-vmstat-count-anonymous-mTHP-fault-allocations.patch",
                           "0002-mm-vmstat-count-anonymous-mTHP-fault-fallbacks.patch"}) {
    fs::copy_file(from / name, proj / "patches/mine" / name);
    series += std::string(name) + "\n";
  }
  ASSERT_TRUE(write_file_atomic(proj / "patches/mine/0003-own.patch", kOwnPatch).ok());
  ASSERT_TRUE(write_file_atomic(proj / "patches/mine/series", series + "0003-own.patch\n").ok());
  ASSERT_TRUE(write_file_atomic(proj / "experiments/mine.yaml", R"(name: e2e-project
kernels:
  - name: mine
    patches: mine
archs: [x86_64]
machine: {cpus: 1, memory: 512M}
knobs: {default: {}}
workloads:
  - name: fault
    params: {size: 16M}
repeat: 2
timeout: 300
)")
                  .ok());
  auto plan = run_cli({"plan", "experiments/mine.yaml"}, proj, dir / "plan.log");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_THAT(plan.output, HasSubstr((proj / "patches/mine").string()));
  // No --results: a run inside a project keeps its results in <project>/results.
  auto run = run_cli({"run", "experiments/mine.yaml", "--arch", "x86_64"}, proj, dir / "run.log");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto session = ResultStore::latest(proj / "results", "e2e-project");
  ASSERT_TRUE(session) << run.output;
  auto records = ResultStore::open(*session)->load_all();
  ASSERT_TRUE(records.ok()) << records.error().message;
  ASSERT_EQ(records->size(), 1u);
  const RunRecord& rec = records->front();
  EXPECT_EQ(rec.status, "ok") << rec.reason;
  EXPECT_THAT(rec.provenance.kernel_source, HasSubstr("+ patches mine"));
  // Its kernel is not the quickstart's: the third patch is in the tree it was built from.
  auto quickstart =
      run_cli({"plan", "experiments/quickstart.yaml", "--arch", "x86_64"}, proj, dir / "plan.log");
  ASSERT_EQ(quickstart.exit_code, 0) << quickstart.output;
  EXPECT_THAT(quickstart.output, HasSubstr("6.12-mthp-vmstat x86_64"));
  EXPECT_FALSE(rec.provenance.kernel_build_id.empty());
  EXPECT_THAT(quickstart.output, Not(HasSubstr(rec.provenance.kernel_build_id)));
  EXPECT_THAT(plan.output, HasSubstr("mine x86_64"));
  EXPECT_THAT(plan.output, HasSubstr(rec.provenance.kernel_build_id));
}

}  // namespace
}  // namespace foliolab
