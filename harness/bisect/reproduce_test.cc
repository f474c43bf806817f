#include "bisect/reproduce.h"

#include <gtest/gtest.h>

#include "model/loader.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

constexpr const char* kYaml = R"(name: nightly
kernels:
  - {name: mm, patches: s, config: [mine]}
  - {name: other}
archs: [x86_64, arm64]
machine: {cpus: 1, memory: 512M}
knobs:
  4K: {hugepages-64kB/enabled: never}
  64K: {hugepages-64kB/enabled: always}
workloads:
  - {name: fault, params: {size: 16M}}
  - {name: fault, label: big, params: {size: 64M}}
repeat: 5
gate:
  - {name: faults, metric: faults, equal: true}
)";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  ASSERT_TRUE(write_file_atomic(p, text).ok());
}

TEST(Reproduce, TheCellPinnedToItsKernelsLoadsAndTheFixIsAppended) {
  ScopedTestDir dir("reproduce");
  write(dir / "project/nightly.yaml", kYaml);
  write(dir / "project/kernel-config/mine.config", "CONFIG_FOO=y\n");
  for (const char* p : {"a.patch", "b.patch", "c.patch", "fix.patch"}) write(dir / p, "x\n");
  auto exp = load_experiment((dir / "project/nightly.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const ReproduceSpec spec{
      .exp = &*exp,
      .kernel = "mm",
      .cell =
          foliolab::Run{.id = "r", .kernel = 0, .arch = Arch::kArm64, .knob_set = 1, .workload = 1},
      .repeat = 2,
      .kernels = {{.label = "parent", .patches = {dir / "a.patch"}},
                  {.label = "culprit", .patches = {dir / "a.patch", dir / "b.patch"}}},
      .extra = {{.label = "tip", .patches = {dir / "a.patch", dir / "b.patch", dir / "c.patch"}}}};
  auto out = write_reproduce(spec, dir / "bisection");
  ASSERT_TRUE(out.ok()) << out.error().message;
  auto r = load_experiment((*out / kReproduceFile).string());
  ASSERT_TRUE(r.ok()) << r.error().message << "\n" << *read_file(*out / kReproduceFile);
  ASSERT_EQ(r->kernels.size(), 2u);
  EXPECT_EQ(r->kernels[0].name, "parent");
  EXPECT_EQ(r->kernels[1].patches, "culprit");
  EXPECT_EQ(r->kernels[1].config, std::vector<std::string>{"mine"});
  EXPECT_EQ(r->archs, std::vector<Arch>{Arch::kArm64});
  ASSERT_EQ(r->knob_sets.size(), 1u);
  EXPECT_EQ(r->knob_sets[0].name, "64K");
  ASSERT_EQ(r->workloads.size(), 1u);
  EXPECT_EQ(r->workloads[0].label, "big");
  EXPECT_TRUE(r->gate_rules.empty());
  EXPECT_EQ(r->machine.memory_mb, 512u);
  EXPECT_EQ(*read_file(*out / "patches/culprit/series"), "a.patch\nb.patch\n");
  EXPECT_TRUE(fs::exists(*out / "kernel-config/mine.config"));  // the project's own fragment
  EXPECT_TRUE(fs::exists(*out / "foliolab.yaml"));

  auto t = write_try_experiment(*out, dir / "fix.patch");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto tried = load_experiment(t->file.string());
  ASSERT_TRUE(tried.ok()) << tried.error().message;
  ASSERT_EQ(tried->kernels.size(), 4u);
  EXPECT_EQ(tried->kernels[2].name, "culprit-fix");
  EXPECT_EQ(tried->kernels[3].name, "tip-fix");
  EXPECT_EQ(*read_file(*out / "patches/culprit-fix/series"), "a.patch\nb.patch\nfix.patch\n");
  EXPECT_EQ(t->columns.back().first, "tip+fix");
  EXPECT_FALSE(write_try_experiment(*out, dir / "none.patch").ok());
}

}  // namespace
}  // namespace foliolab
