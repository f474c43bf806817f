// End-to-end tests: real kernels built from Debian's linux-source-6.12 with patches/mthp-vmstat,
// real QEMU guests (TCG here). Kernels and images are cached (FOLIOLAB_CACHE or
// ~/.cache/foliolab), so every test shares the two quickstart kernels: a cold machine builds
// them once (about 10 + 7 minutes on 2 cores).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "guest/backend.h"
#include "analysis/expectations.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "runner/experiment_runner.h"
#include "util/fs.h"
#include "util/test_dir.h"
#include "e2e/quickstart_checks.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

const fs::path kRoot = FOLIOLAB_SOURCE_DIR;

struct Session {
  SessionSummary summary;
  std::vector<RunRecord> records;
};

void log_to_stderr(const std::string& s) { fmt::print(stderr, "{}\n", s); }

Session run_experiment(const Experiment& exp, AccelProbeOptions probe = {.cache_dir = cache_root()}) {
  RealProcessRunner proc;
  QemuBackend backend(proc, probe);
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
  return find_run(s.records, arch, knob_set);
}

// The quickstart on both arches (expect_quickstart_claims).
TEST(E2EQuickstart, BothArchesShow64KmTHPCounters) {
  auto exp = load_experiment((kRoot / "experiments/quickstart.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  Session s = run_experiment(*exp);
  ASSERT_EQ(s.summary.failed, 0);
  expect_quickstart_claims(s.records);
  // Nothing changed: asking again must not invoke make.
  RealProcessRunner proc;
  KernelBuilder builder(proc, {.project_root = kRoot, .spec_dir = kRoot / "experiments", .cache = cache_root()});
  for (Arch a : exp->archs) {
    auto k = builder.build(exp->kernels[0], a);
    ASSERT_TRUE(k.ok()) << k.error().message;
    EXPECT_TRUE(k->cache_hit);
  }
}

const fs::path& e2e_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / fmt::format("foliolab-e2e-yaml-{}", ::getpid());
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// The YAML of a small x86_64 experiment on the quickstart kernel (shared with every e2e test).
std::string small_x86_yaml(const std::string& knob_sets_yaml, int timeout, const std::string& workloads_yaml) {
  return fmt::format(R"(name: e2e-failures
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {{cpus: 1, memory: 1G}}
knobs:
{}
workloads:
{}
repeat: 2
timeout: {}
)", knob_sets_yaml, workloads_yaml, timeout);
}

Experiment load_yaml(const std::string& yaml, const std::string& file = "e2e.yaml") {
  EXPECT_TRUE(write_file_atomic(e2e_dir() / file, yaml).ok());
  auto exp = load_experiment((e2e_dir() / file).string());
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

Experiment small_x86_experiment(const std::string& knob_sets_yaml, int timeout, const std::string& params) {
  return load_yaml(small_x86_yaml(knob_sets_yaml, timeout, "  - name: fault\n    params: {" + params + "}\n"));
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

// A guest that really never finishes (its workload spins forever), so the test holds on a machine
// of any speed: it must end as timed-out, killed, with its console kept.
TEST(E2EFailures, HungGuestIsKilledAtItsTimeoutAndItsConsoleKept) {
  ASSERT_TRUE(write_file_atomic(e2e_dir() / "spin.c",
                                "int main(void) {\n  for (;;) __asm__ volatile(\"\");\n}\n").ok());
  Experiment exp = load_yaml(small_x86_yaml("  spin:\n    enabled: never\n", 20,
                                            "  - name: custom\n    label: spin\n    params: {source: spin.c}\n"));
  Session s = run_experiment(exp);
  const RunRecord* spin = find(s, "x86_64", "spin");
  ASSERT_TRUE(spin);
  EXPECT_EQ(spin->status, "timed-out") << spin->reason;
  const fs::path console = s.summary.dir / "runs" / spin->id.run_id / "console.log";
  auto text = read_file(console);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("Linux version 6.12"), std::string::npos);
  EXPECT_NE(text->find("foliolab-agent:"), std::string::npos);  // hung in the workload, not in boot
}

// Processes whose parent is `parent` and whose command name starts with `prefix`.
std::vector<pid_t> children_named(pid_t parent, const std::string& prefix) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = read_file(e.path() / "stat");
    if (!stat.ok()) continue;
    const size_t open = stat->find('('), close = stat->rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 > stat->size()) continue;
    const std::string comm = stat->substr(open + 1, close - open - 1);
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat->c_str() + close + 2, "%c %d", &state, &ppid) != 2) continue;
    if (ppid == parent && state != 'Z' && comm.rfind(prefix, 0) == 0) out.push_back(std::stoi(name));
  }
  return out;
}


// Starts the real CLI with `args`, output to `log`; returns its pid.
pid_t spawn_cli(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  std::vector<char*> argv;
  std::string cli = FOLIOLAB_CLI;
  argv.push_back(cli.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(cli.c_str(), argv.data());
  ::_exit(127);
}

int wait_exit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

size_t count_records(const fs::path& results) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(results, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (it->path().filename() == "run.json") ++n;
  }
  return n;
}

// SIGKILL cannot be caught: the QEMU child must still die with foliolab (PR_SET_PDEATHSIG and
// the group reaper), and --resume must then finish the matrix, keeping the run that had ended.
TEST(E2EHarnessKilled, SigkillMidGuestLeavesNoQemuAndResumeFinishesTheMatrix) {
  const fs::path yaml = e2e_dir() / "killed.yaml";
  ASSERT_TRUE(write_file_atomic(yaml, small_x86_yaml("  a:\n    enabled: never\n  b:\n    enabled: always\n"
                                                     "  c:\n    enabled: madvise\n", 600,
                                                     "  - name: fault\n    params: {size: 256M}\n")).ok());
  const fs::path results = e2e_dir() / "killed-results";
  fs::remove_all(results);
  const fs::path log = e2e_dir() / "killed.log";
  const pid_t cli = spawn_cli({"run", yaml.string(), "--results", results.string()}, log);
  ASSERT_GT(cli, 0);
  // Wait until one run has ended and the next guest is up (no deadline: a cold cache builds the
  // kernel first; ctest's own timeout bounds a broken build).
  std::vector<pid_t> qemus;  // every guest up at the kill (with -j, more than one)
  int status = 0;
  while (qemus.empty()) {
    if (::waitpid(cli, &status, WNOHANG) == cli) FAIL() << "foliolab ended before the kill: " << *read_file(log);
    if (count_records(results) >= 1) qemus = children_named(cli, "qemu-system");
    if (qemus.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(::kill(cli, SIGKILL), 0);
  EXPECT_EQ(wait_exit(cli), 128 + SIGKILL);
  // Death follows at once; the bound only keeps a regression from hanging the test.
  for (pid_t qemu : qemus) {
    for (int i = 0; i < 6000 && process_alive(qemu); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(process_alive(qemu)) << "QEMU " << qemu << " outlived the SIGKILLed foliolab";
    if (process_alive(qemu)) ::kill(qemu, SIGKILL);
  }
  const size_t kept = count_records(results);
  ASSERT_GE(kept, 1u);
  ASSERT_LT(kept, 3u);

  const pid_t resumed = spawn_cli({"run", yaml.string(), "--results", results.string(), "--resume"}, log);
  EXPECT_EQ(wait_exit(resumed), 0) << *read_file(log);
  EXPECT_EQ(count_records(results), 3u);
  EXPECT_NE(read_file(log)->find(fmt::format("({} kept from before)", kept)), std::string::npos) << *read_file(log);
}

// A host whose /dev/kvm opens but whose QEMU aborts under KVM ("failed to set MSR 0x10a", as
// under broken nested virtualization), simulated with a QEMU wrapper first in PATH and a device
// file that opens: auto must fall back to TCG, saying why in QEMU's words, and cache the verdict;
// an explicit kvm must be an error before any run.
TEST(E2EBrokenKvm, AutoFallsBackToTcgInQemusWordsAndExplicitKvmIsAnError) {
  const std::string real = find_program("qemu-system-x86_64");
  ASSERT_FALSE(real.empty());
  const fs::path bin = e2e_dir() / "broken-kvm-bin";
  fs::create_directories(bin);
  const fs::path fake = bin / "qemu-system-x86_64";
  ASSERT_TRUE(write_file_atomic(fake, fmt::format(R"(#!/bin/sh
# QEMU 7.2 on a host whose /dev/kvm opens but cannot run guests.
for a in "$@"; do
  if [ "$a" = kvm ]; then
    echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
    echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:2980: kvm_buf_set_msrs: Assertion \`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
    kill -ABRT $$
  fi
done
exec {} "$@"
)", real)).ok());
  fs::permissions(fake, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
  const fs::path kvm = e2e_dir() / "kvm-that-opens";
  ASSERT_TRUE(write_file_atomic(kvm, "").ok());
  const fs::path verdicts = e2e_dir() / "accel-cache";
  fs::remove_all(verdicts);
  const AccelProbeOptions probe{.cache_dir = verdicts, .kvm_device = kvm};

  Experiment exp = small_x86_experiment("  a:\n    enabled: never\n", 600, "size: 16M");
  for (int pass = 0; pass < 2; ++pass) {  // the second pass takes the cached verdict
    Session s = run_experiment(exp, probe);
    ASSERT_EQ(s.records.size(), 1u);
    const RunRecord& r = s.records[0];
    EXPECT_EQ(r.status, "ok") << r.reason;
    EXPECT_EQ(r.provenance.accel, "tcg");
    const std::string why = r.provenance.accel_reason;
    EXPECT_NE(why.find("killed by signal 6"), std::string::npos) << why;
    EXPECT_NE(why.find("failed to set MSR 0x10a"), std::string::npos) << why;
    EXPECT_EQ(why.find("cached") != std::string::npos, pass == 1) << why;
  }

  exp.machine.accel = AccelChoice::kKvm;
  RealProcessRunner proc;
  QemuBackend backend(proc, probe);
  BuildingArtifactProvider artifacts(proc, {.project_root = kRoot, .spec_dir = e2e_dir(), .cache = cache_root()});
  const fs::path results = e2e_dir() / "kvm-results";
  ExperimentRunner runner(artifacts, backend, {.project_root = kRoot, .results_root = results});
  auto summary = runner.run(exp, expand(exp));
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("accel kvm was requested for x86_64 guests"), std::string::npos)
      << summary.error().message;
  EXPECT_NE(summary.error().message.find("failed to set MSR 0x10a"), std::string::npos) << summary.error().message;
  EXPECT_EQ(count_records(results), 0u);
  ::setenv("PATH", old_path.c_str(), 1);
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
