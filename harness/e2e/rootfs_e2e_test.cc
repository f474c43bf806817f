// End-to-end tests of Debian root filesystems (machine.image, issue 20): images built by the real
// mmdebstrap from Debian's archive and cached, booted on the full guest kernels (which carry the
// block, ext4 and network options: kernel-config/guest-full.config) under TCG, running Debian's
// own redis and stress. Every test goes through the foliolab binary, as a user would.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "results/store.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/cache_root.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The quickstart's kernel, which every e2e test shares (it carries the rootfs options).
constexpr const char* kQuickstartKernel =
    "kernels:\n  - name: 6.12-mthp-vmstat\n    patches: mthp-vmstat\n";

ProcessResult foliolab(const std::vector<std::string>& args, const fs::path& log) {
  return run_cli(args, fs::current_path(), log);
}

// One small run on a root filesystem: the fault workload over 4M, 64K anon mTHP `mthp`, 2 reps.
std::string fault_on_image(const std::string& name, const std::string& arch,
                           const std::string& image, const std::string& mthp) {
  return fmt::format(
      "name: {}\n{}archs: [{}]\nmachine: {{cpus: 1, memory: 1G, image: {}}}\n"
      "knobs:\n  \"64K {}\": {{hugepages-64kB/enabled: {}}}\n"
      "workloads:\n  - {{name: fault, params: {{size: 4M}}}}\nrepeat: 2\ntimeout: 600\n",
      name, kQuickstartKernel, arch, image, mthp, mthp);
}

std::vector<RunRecord> records_of(const fs::path& results, const std::string& name) {
  auto session = ResultStore::latest(results, name);
  EXPECT_TRUE(session);
  if (!session) return {};
  auto all = ResultStore::open(*session)->load_all();
  EXPECT_TRUE(all.ok()) << all.error().message;
  return all.ok() ? *all : std::vector<RunRecord>{};
}

// `foliolab run exp.yaml --results results` of `yaml` (whose name: is `name`) from the
// experiment's own folder, relative names as a user types them: it must exit 0 (every expectation
// held), and its records, each ok on the debian-redis root filesystem.
std::vector<RunRecord> run_on_debian_redis(const ScopedTestDir& dir, const std::string& name,
                                           const std::string& yaml) {
  EXPECT_TRUE(write_file_atomic(dir / "exp.yaml", yaml).ok());
  auto r = run_cli({"run", "exp.yaml", "--results", "results"}, dir.path(), dir / "run.log");
  EXPECT_TRUE(r.ok()) << r.output;
  auto records = records_of(dir / "results", name);
  for (const RunRecord& rec : records) {
    EXPECT_EQ(rec.status, "ok") << rec.reason;
    EXPECT_EQ(rec.provenance.rootfs_recipe, "debian-redis");
    EXPECT_EQ(rec.provenance.rootfs_id.size(), 16u);
  }
  return records;
}

// `foliolab image --recipe debian-redis`: built once from the archive (or already cached by an
// earlier test), then a cache hit with the same image id; the host's binfmt_misc is untouched.
TEST(E2ERootfs, ImageIsBuiltFromTheArchiveAndThenCached) {
  ScopedTestDir dir("rootfs-image");
  // arm64 the way `auto` picks here: qemu-user in a private binfmt_misc on Linux 6.7+, the
  // second stage in a guest before.
  for (const std::string arch : {"x86_64", "arm64"}) {
    SCOPED_TRACE(arch);
    auto first = foliolab({"image", "--recipe", "debian-redis", "--arch", arch}, dir / "1.log");
    ASSERT_TRUE(first.ok()) << first.output;
    auto second = foliolab({"image", "--recipe", "debian-redis", "--arch", arch}, dir / "2.log");
    ASSERT_TRUE(second.ok()) << second.output;
    EXPECT_NE(second.output.find(" cached "), std::string::npos) << second.output;
    // The result line "debian-redis <arch> <image id> built|cached <path>", after any progress
    // ("building debian-redis for <arch> ..." on a cold cache): the same id both times.
    auto id = [&arch](const std::string& out) {
      const std::string key = "debian-redis " + arch + " ";
      const size_t at = out.rfind(key);
      return at == std::string::npos ? std::string() : out.substr(at + key.size(), 16);
    };
    EXPECT_EQ(id(first.output).size(), 16u) << first.output;
    EXPECT_EQ(id(first.output), id(second.output)) << first.output << second.output;
  }
  // Nothing was registered on the host: its binfmt_misc (when mounted) has no foliolab entry.
  EXPECT_FALSE(path_exists("/proc/sys/fs/binfmt_misc/foliolab-arm64"));
}

// arm64 the other way (image/second_stage.h), needing no binfmt_misc at all: the packages are
// unpacked on the host by mmdebstrap's extract variant and installed by dpkg in a real arm64
// guest (the quickstart's kernel) booted on the disk. A small recipe of the test's own (stress
// on minbase, a command that leaves a mark) in a project that borrows the source tree's parts;
// the finished disk is read with debugfs, never mounted. Built once per cache, like every image.
TEST(E2ERootfs, Arm64ImageWithoutBinfmtIsInstalledInAGuest) {
  ScopedTestDir dir("rootfs-guest");
  const fs::path project = dir / "project", src(source_dir());
  fs::create_directories(project / "images");
  for (const char* part : {"experiments", "kernel-config", "patches", "workloads", "images/agent"})
    fs::create_directory_symlink(src / part, project / part);
  ASSERT_TRUE(write_file_atomic(project / "images/e2e-guest.yaml",
                                "suite: bookworm\nvariant: minbase\npackages: [stress]\n"
                                "commands:\n  - [touch, /etc/foliolab-e2e-guest]\nfree: 64M\n")
                  .ok());
  std::error_code ec;
  // Cached like every image (issue 31: rebuilding it cost about 3 minutes of every run): built
  // the guest way on an empty cache, then a cache hit whose image.json says how it was made.
  auto r = foliolab({"image", "--recipe", "e2e-guest", "--arch", "arm64", "--foreign", "guest",
                     "--root", project.string()},
                    dir / "image.log");
  ASSERT_TRUE(r.ok()) << r.output;
  const bool built = r.output.find(" built ") != std::string::npos;
  EXPECT_TRUE(built || r.output.find(" cached ") != std::string::npos) << r.output;
  if (built) {
    EXPECT_NE(r.output.find("second stage in a guest"), std::string::npos) << r.output;
  }
  fs::path item;
  for (const auto& e : fs::directory_iterator(cache_root() / "images", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("rootfs-arm64-e2e-guest-", 0) == 0 && e.is_directory()) item = e.path();
  }
  ASSERT_FALSE(item.empty());
  auto meta = read_file(item / "image.json");
  ASSERT_TRUE(meta.ok());
  const auto j = nlohmann::json::parse(*meta);
  EXPECT_EQ(j["made"], "unpacked here, second stage in a guest");
  std::set<std::string> installed;
  for (const auto& p : j["manifest"]) installed.insert(p["package"].get<std::string>());
  for (const char* p : {"stress", "dpkg", "apt", "base-passwd", "libc6"})
    EXPECT_TRUE(installed.count(p)) << p;
  // The recipe's command ran in the guest; the second stage's own files are gone.
  auto debugfs = [&](const std::string& request) {
    RealProcessRunner proc;
    return proc.run(
        {.argv = {"debugfs", "-R", request, (item / "disk.ext4").string()}, .capture = true});
  };
  EXPECT_NE(debugfs("stat /etc/foliolab-e2e-guest").output.find("Inode:"), std::string::npos);
  EXPECT_NE(debugfs("stat /foliolab-stage2").output.find("File not found"), std::string::npos);
  EXPECT_NE(debugfs("stat /usr/sbin/policy-rc.d").output.find("File not found"), std::string::npos);
  EXPECT_NE(debugfs("stat /etc/passwd").output.find("Inode:"), std::string::npos);
  // And it is a root an arm64 guest runs on: a run of the same project, the same way.
  ASSERT_TRUE(write_file_atomic(dir / "boot.yaml",
                                fault_on_image("e2e-rootfs-guest", "arm64", "e2e-guest", "always"))
                  .ok());
  auto run = foliolab({"run", (dir / "boot.yaml").string(), "--root", project.string(), "--foreign",
                       "guest", "--results", (dir / "results").string()},
                      dir / "run.log");
  ASSERT_TRUE(run.ok()) << run.output;
  const auto records = records_of(dir / "results", "e2e-rootfs-guest");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, "ok") << records[0].reason;
  EXPECT_EQ(records[0].provenance.rootfs_id, j["image_id"].get<std::string>());
}

// A package Debian does not have: a located error (exit 2) and no image left in the cache.
TEST(E2ERootfs, AnUnknownPackageIsNamedAndLeavesNoImage) {
  ScopedTestDir dir("rootfs-bad");
  const fs::path project = dir / "project", cache = dir / "cache";
  fs::create_directories(project / "images");
  ASSERT_TRUE(write_file_atomic(project / "images/typo.yaml",
                                "suite: bookworm\npackages: [stress, redis-servr]\n")
                  .ok());
  auto r = foliolab({"image", "--recipe", "typo", "--arch", "x86_64", "--root", project.string(),
                     "--cache", cache.string()},
                    dir / "image.log");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("typo.yaml:2:20: packages[1]: Debian bookworm has no package "
                          "'redis-servr'"),
            std::string::npos)
      << r.output;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache / "images", ec)) {
    EXPECT_FALSE(path_exists(e.path() / "disk.ext4")) << e.path();
    EXPECT_FALSE(path_exists(e.path() / "image.json")) << e.path();
  }
}

// Seed 002 in a real program, x86_64: Debian's redis with `disable-thp yes` turns THP off for
// itself under THP `always`, with `no` it keeps it (the shipped
// experiments/published/redis-disable-thp.yaml at a smaller load: its AnonHugePages ratio needs
// the full preload and is measured in docs/published.md, not here), and every record names the root
// filesystem it booted. Beside it, stress-ng --vm (the smoke alternative to stress) runs to its
// end in a memory cgroup roomier than what it allocates.
TEST(E2ERootfs, RedisTurnsThpOffForItselfOnX86) {
  ScopedTestDir dir("rootfs-redis");
  const auto records = run_on_debian_redis(
      dir, "e2e-rootfs-redis",
      std::string("name: e2e-rootfs-redis\n") + kQuickstartKernel + R"(archs: [x86_64]
machine: {cpus: 2, memory: 1G, image: debian-redis}
knobs:
  "THP always": {enabled: always}
workloads:
  - {name: redis, label: "yes", params: {disable_thp: true, preload: 1000, requests: 500, tests: get}}
  - {name: redis, label: "no", params: {disable_thp: false, preload: 1000, requests: 500, tests: get}}
  - {name: memcg-stress, label: stress-ng, params: {program: stress-ng, memory_max: 64M, vm_bytes: 16M, duration: 3}}
repeat: 2
timeout: 900
expect:
  - {runs: {workload: "yes"}, metric: thp_enabled, stat: max, "==": 0}
  - {runs: {workload: "no"}, metric: thp_enabled, stat: min, "==": 1}
  - {runs: {workload: stress-ng}, metric: survived, stat: min, "==": 1}
  - {runs: {workload: stress-ng}, metric: peak_kb, stat: min, ">": 16384}
)");
  ASSERT_EQ(records.size(), 3u);
  for (const RunRecord& rec : records) {
    if (rec.id.workload.name != "redis") continue;
    const std::vector<double> rps = rec.samples("get_rps");
    EXPECT_EQ(rps.size(), 2u);
    for (double v : rps) EXPECT_GT(v, 0);
  }
}

// arm64: the Debian root filesystem boots and Debian's stress runs in a memory cgroup (Arif's
// test, 3 s): with the underused-THP shrinker at max_ptes_none 409 it survives and THPs are
// split as underused; at 511 none is (the 6.12 code skips the check). Whether stress is
// OOM-killed at 511 is not asserted: measured here it was in one rep of two (when a THP cannot
// be charged the fault falls back to 4K pages, and 40M touched every 50K fits in 20M then);
// experiments/published/arif-split-underused-thp.yaml reports it.
TEST(E2ERootfs, Arm64RunsDebiansStressInAMemoryCgroup) {
  ScopedTestDir dir("rootfs-arm64");
  const auto records = run_on_debian_redis(
      dir, "e2e-rootfs-arm64",
      std::string("name: e2e-rootfs-arm64\n") + kQuickstartKernel + R"(archs: [arm64]
machine: {cpus: 1, memory: 1G, image: debian-redis}
knobs:
  "409 shrink": {enabled: always, khugepaged/max_ptes_none: 409, shrink_underused: 1}
  "511 shrink": {enabled: always, khugepaged/max_ptes_none: 511, shrink_underused: 1}
workloads:
  - name: memcg-stress
    params: {memory_max: 20M, swap_max: 0, vm_bytes: 40M, vm_stride: 50K, duration: 3}
repeat: 2
timeout: 900
expect:
  - {runs: {knobs: "409 shrink"}, metric: survived, stat: min, "==": 1}
  - {runs: {knobs: "409 shrink"}, metric: underused_split, stat: min, ">": 0}
  - {runs: {knobs: "511 shrink"}, metric: underused_split, stat: max, "==": 0}
)");
  ASSERT_EQ(records.size(), 2u);
  for (const RunRecord& rec : records) {
    ASSERT_TRUE(rec.provenance.has_guest);
    EXPECT_EQ(rec.provenance.guest.machine, "aarch64");
  }
}

// The images as built, but a root filesystem whose disk never reaches the guest.
class DiskLost : public BuildingArtifactProvider {
 public:
  using BuildingArtifactProvider::BuildingArtifactProvider;
  Result<RootfsArtifact> rootfs(const std::string& recipe, Arch) override {
    return RootfsArtifact{.recipe = recipe, .image_id = "0000000000000000"};
  }
};

// A guest whose root disk is missing: a real x86_64 guest whose job names /dev/vda, with no disk
// attached. The agent names the missing device, the run is recorded failed with the console log
// kept, and the session ends normally.
TEST(E2ERootfs, AMissingRootDiskIsNamedAndTheRunFails) {
  ScopedTestDir dir("rootfs-nodisk");
  ASSERT_TRUE(write_file_atomic(dir / "nodisk.yaml", fault_on_image("e2e-rootfs-nodisk", "x86_64",
                                                                    "debian-redis", "never"))
                  .ok());
  auto exp = load_experiment((dir / "nodisk.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  RealProcessRunner proc;
  QemuBackend backend(proc, {.cache_dir = cache_root()});
  DiskLost artifacts(proc,
                     {.data_root = source_dir(), .spec_dir = dir.path(), .cache = cache_root()});
  ExperimentRunner runner(artifacts, backend,
                          {.data_root = source_dir(), .results_root = dir / "results"});
  auto summary = runner.run(*exp, expand(*exp));
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->failed, 1);
  const auto records = records_of(dir / "results", "e2e-rootfs-nodisk");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, "failed");
  EXPECT_NE(records[0].reason.find("/dev/vda did not appear within 20 s"), std::string::npos)
      << records[0].reason;
  EXPECT_NE(records[0].reason.find("console log: "), std::string::npos) << records[0].reason;
}

}  // namespace
}  // namespace foliolab
