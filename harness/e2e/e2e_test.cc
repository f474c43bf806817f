// End-to-end tests: real kernels built from Debian's linux-source-6.12 with patches/mthp-vmstat,
// real QEMU guests (TCG here). Kernels and images are cached (FOLIOLAB_CACHE or
// ~/.cache/foliolab), so every test shares the two quickstart kernels: a cold machine builds
// them once (about 10 + 7 minutes on 2 cores).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "analysis/expectations.h"
#include "backend/backend.h"
#include "e2e/quickstart_checks.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "report/session_layout.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "testing/cli_binary.h"
#include "testing/source_root.h"
#include "testing/temp_dir.h"
#include "util/cache_root.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

struct RunOutcome {
  SessionSummary summary;
  std::vector<RunRecord> records;
};

void log_to_stderr(const std::string& s) { fmt::print(stderr, "{}\n", s); }

RunOutcome run_experiment(const Experiment& exp,
                          AccelProbeOptions probe = {.cache_dir = cache_root()}) {
  RealProcessRunner proc;
  QemuBackend backend(proc, probe);
  BuildingArtifactProvider artifacts(
      proc,
      {.data_root = kSourceRoot, .spec_dir = exp.dir, .cache = cache_root(), .log = log_to_stderr});
  const fs::path results = fs::temp_directory_path() / fmt::format("foliolab-e2e-{}", ::getpid());
  ExperimentRunner runner(
      artifacts, backend,
      {.data_root = kSourceRoot, .results_root = results, .log = log_to_stderr});
  auto summary = runner.run(exp, expand(exp));
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  RunOutcome s;
  if (!summary.ok()) return s;
  s.summary = *summary;
  auto store = ResultStore::open(summary->dir);
  auto all = store->load_all();
  EXPECT_TRUE(all.ok());
  if (all.ok()) s.records = *all;
  return s;
}

const RunRecord* find(const RunOutcome& s, const std::string& arch, const std::string& knob_set) {
  return find_run(s.records, arch, knob_set);
}

// The quickstart on both arches (expect_quickstart_claims).
TEST(E2EQuickstart, BothArchesShow64KmTHPCounters) {
  auto exp = load_experiment((kSourceRoot / "experiments/quickstart.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  RunOutcome s = run_experiment(*exp);
  ASSERT_EQ(s.summary.failed, 0);
  expect_quickstart_claims(s.records);
  // Nothing changed: asking again must not invoke make.
  RealProcessRunner proc;
  KernelBuilder builder(
      proc,
      {.data_root = kSourceRoot, .spec_dir = kSourceRoot / "experiments", .cache = cache_root()});
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
std::string small_x86_yaml(const std::string& knob_sets_yaml, int timeout,
                           const std::string& workloads_yaml) {
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
)",
                     knob_sets_yaml, workloads_yaml, timeout);
}

Experiment load_yaml(const std::string& yaml, const std::string& file = "e2e.yaml") {
  EXPECT_TRUE(write_file_atomic(e2e_dir() / file, yaml).ok());
  auto exp = load_experiment((e2e_dir() / file).string());
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

Experiment small_x86_experiment(const std::string& knob_sets_yaml, int timeout,
                                const std::string& params) {
  return load_yaml(
      small_x86_yaml(knob_sets_yaml, timeout, "  - name: fault\n    params: {" + params + "}\n"));
}

// A panicking guest ends QEMU with status 0: the run must still be failed, with the panic line
// and the console log kept, and the next run of the matrix must still happen.
TEST(E2EFailures, PanicAndUnknownKnobFailOnlyTheirRunsAndTheMatrixGoesOn) {
  Experiment exp = small_x86_experiment(
      "  panic:\n    cmdline: rdinit=/does-not-exist\n"
      "  unknown-knob:\n    hugepages-4kB/enabled: always\n"
      "  fine:\n    enabled: never\n",
      120, "size: 16M");
  RunOutcome s = run_experiment(exp);
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
  // the release of the kernel this run built (Debian's linux-source-6.12 moves on: 6.12.117, .118)
  ASSERT_TRUE(unknown->provenance.kernel_version.starts_with("6.12."))
      << unknown->provenance.kernel_version;
  EXPECT_NE(why.find("kernel " + unknown->provenance.kernel_version + ":"), std::string::npos)
      << why;
  EXPECT_NE(why.find("/sys/kernel/mm/transparent_hugepage/hugepages-4kB/enabled"),
            std::string::npos)
      << why;
  EXPECT_EQ(fine->status, "ok") << fine->reason;
}

// A guest that really never finishes (its workload spins forever), so the test holds on a machine
// of any speed: it must end as timed-out, killed, with its console kept.
TEST(E2EFailures, HungGuestIsKilledAtItsTimeoutAndItsConsoleKept) {
  ASSERT_TRUE(write_file_atomic(e2e_dir() / "spin.c",
                                "int main(void) {\n  for (;;) __asm__ volatile(\"\");\n}\n")
                  .ok());
  Experiment exp = load_yaml(
      small_x86_yaml("  spin:\n    enabled: never\n", 20,
                     "  - name: custom\n    label: spin\n    params: {source: spin.c}\n"));
  RunOutcome s = run_experiment(exp);
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
    if (open == std::string::npos || close == std::string::npos || close + 4 > stat->size())
      continue;
    const std::string comm = stat->substr(open + 1, close - open - 1);
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat->c_str() + close + 2, "%c %d", &state, &ppid) != 2) continue;
    if (ppid == parent && state != 'Z' && comm.rfind(prefix, 0) == 0)
      out.push_back(std::stoi(name));
  }
  return out;
}

size_t count_records(const fs::path& results) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(results, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->path().filename() == "run.json") ++n;
  }
  return n;
}

// SIGKILL cannot be caught: the QEMU child must still die with foliolab (PR_SET_PDEATHSIG and
// the group reaper), and --resume must then finish the matrix, keeping the run that had ended.
TEST(E2EHarnessKilled, SigkillMidGuestLeavesNoQemuAndResumeFinishesTheMatrix) {
  const fs::path yaml = e2e_dir() / "killed.yaml";
  ASSERT_TRUE(
      write_file_atomic(yaml, small_x86_yaml("  a:\n    enabled: never\n  b:\n    enabled: always\n"
                                             "  c:\n    enabled: madvise\n",
                                             600, "  - name: fault\n    params: {size: 256M}\n"))
          .ok());
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
    if (::waitpid(cli, &status, WNOHANG) == cli)
      FAIL() << "foliolab ended before the kill: " << *read_file(log);
    if (count_records(results) >= 1) qemus = children_named(cli, "qemu-system");
    if (qemus.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(::kill(cli, SIGKILL), 0);
  EXPECT_EQ(wait_exit(cli), 128 + SIGKILL);
  // Death follows at once; the bound only keeps a regression from hanging the test.
  for (pid_t qemu : qemus) {
    for (int i = 0; i < 6000 && process_alive(qemu); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(process_alive(qemu)) << "QEMU " << qemu << " outlived the SIGKILLed foliolab";
    if (process_alive(qemu)) ::kill(qemu, SIGKILL);
  }
  const size_t kept = count_records(results);
  ASSERT_GE(kept, 1u);
  ASSERT_LT(kept, 3u);

  const pid_t resumed =
      spawn_cli({"run", yaml.string(), "--results", results.string(), "--resume"}, log);
  EXPECT_EQ(wait_exit(resumed), 0) << *read_file(log);
  EXPECT_EQ(count_records(results), 3u);
  EXPECT_NE(read_file(log)->find(fmt::format("({} kept from before)", kept)), std::string::npos)
      << *read_file(log);
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
)",
                                                  real))
                  .ok());
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
    RunOutcome s = run_experiment(exp, probe);
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
  BuildingArtifactProvider artifacts(
      proc, {.data_root = kSourceRoot, .spec_dir = e2e_dir(), .cache = cache_root()});
  const fs::path results = e2e_dir() / "kvm-results";
  ExperimentRunner runner(artifacts, backend, {.data_root = kSourceRoot, .results_root = results});
  auto summary = runner.run(exp, expand(exp));
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("accel kvm was requested for x86_64 guests"),
            std::string::npos)
      << summary.error().message;
  EXPECT_NE(summary.error().message.find("failed to set MSR 0x10a"), std::string::npos)
      << summary.error().message;
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
  auto exp = load_experiment((kSourceRoot / "experiments/seeds" / file).string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_FALSE(exp->expectations.empty());
  RunOutcome s = run_experiment(*exp);
  EXPECT_EQ(s.summary.failed, 0);
  auto results = evaluate_expectations(*exp, s.records);
  ASSERT_EQ(results.size(), exp->expectations.size());
  for (const auto& r : results) {
    std::string details;
    for (const auto& d : expectation_details(r)) details += "\n  " + d;
    EXPECT_TRUE(r.held) << r.name << details;
  }
}

TEST(E2ESeeds, S000AnonShmemMthpFaultsDropTenfold) {
  expect_seed_holds("000-anon-shmem-mthp.yaml");
}
TEST(E2ESeeds, S001AnonMthpSizeSweepCountsFolios) { expect_seed_holds("001-anon-mthp.yaml"); }
TEST(E2ESeeds, S002PrctlThpDisable) { expect_seed_holds("002-prctl-thp-disable.yaml"); }
TEST(E2ESeeds, S003ThpShrinkerSplitsUnderusedThps) { expect_seed_holds("003-thp-shrinker.yaml"); }
TEST(E2ESeeds, S004HugeZeroPageKeepsRssSmall) { expect_seed_holds("004-huge-zero-page.yaml"); }

// ---- backend: host (bare metal on this machine's real /sys/kernel/mm/transparent_hugepage) ----

const fs::path kThp = "/sys/kernel/mm/transparent_hugepage";
const fs::path kSysctl = "/proc/sys/vm/compaction_proactiveness";

// Every writable file under the THP tree (enabled, defrag, shmem_enabled, use_zero_page,
// shrink_underused, khugepaged/*, hugepages-*kB/{enabled,shmem_enabled}, ...) and the sysctl
// the tests set, with its contents. Counters are read-only and left out.
std::map<std::string, std::string> host_knobs() {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(kThp, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file() ||
        (it->status().permissions() & fs::perms::owner_write) == fs::perms::none)
      continue;
    if (auto v = read_file(it->path()); v.ok()) out[it->path().string()] = *v;
  }
  if (auto v = read_file(kSysctl); v.ok()) out[kSysctl.string()] = *v;
  return out;
}

// Puts the host back as the test found it whatever happened (a failing test, a foliolab bug).
struct HostKnobGuard {
  std::map<std::string, std::string> before = host_knobs();
  ~HostKnobGuard() {
    for (const auto& [path, text] : host_knobs()) {
      if (before.count(path) && before.at(path) != text) {
        const std::string raw = before.at(path);
        const size_t l = raw.find('['), r = raw.find(']');
        const std::string value =
            l != std::string::npos && r != std::string::npos ? raw.substr(l + 1, r - l - 1) : raw;
        ADD_FAILURE() << "the test restores " << path << " to " << value;
        if (FILE* f = std::fopen(path.c_str(), "w")) {
          std::fputs(value.c_str(), f);
          std::fclose(f);
        }
      }
    }
  }
};

std::vector<std::string> host_knob_differences(const std::map<std::string, std::string>& before) {
  std::vector<std::string> diff;
  for (const auto& [path, text] : host_knobs()) {
    if (!before.count(path) || before.at(path) != text) diff.push_back(path + ": " + text);
  }
  return diff;
}

bool host_backend_possible(std::string* why) {
  if (::geteuid() != 0)
    *why = "not root: the host backend writes the host's THP knobs";
  else if (!fs::exists(kThp / "hugepages-64kB/enabled"))
    *why = "no THP sysfs with 64kB mTHP on this host";
  return why->empty();
}

// THP never vs always (with the 64kB size and a sysctl): each knob set changes the host.
std::string host_yaml(const std::string& size, int repeat) {
  return fmt::format(R"(name: e2e-host
kernels:
  - name: host
archs: [x86_64]
machine: {{backend: host}}
knobs:
  never:
    enabled: never
    hugepages-64kB/enabled: never
    sysctl: {{vm/compaction_proactiveness: 0}}
  always:
    enabled: always
    hugepages-64kB/enabled: always
    khugepaged/defrag: 0
workloads:
  - name: fault
    params: {{size: {}}}
repeat: {}
timeout: 600
)",
                     size, repeat);
}

// The same agent and workload on bare metal: both runs ok with the knobs they asked for, THP
// always faulting far less than never, and every knob of the host reading as before.
TEST(E2EHostBackend, FaultRunsOnTheHostAndEveryThpKnobReadsAsBefore) {
  std::string why;
  if (!host_backend_possible(&why)) GTEST_SKIP() << why;
  HostKnobGuard guard;
  const fs::path yaml = e2e_dir() / "host.yaml";
  ASSERT_TRUE(write_file_atomic(yaml, host_yaml("64M", 2)).ok());
  const fs::path results = e2e_dir() / "host-results";
  fs::remove_all(results);
  const fs::path log = e2e_dir() / "host.log";
  const pid_t cli =
      spawn_cli({"run", yaml.string(), "--results", results.string(), "-j", "2"}, log);
  EXPECT_EQ(wait_exit(cli), 0) << *read_file(log);
  EXPECT_EQ(host_knob_differences(guard.before), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(cache_root() / "host" / "knob-journal.json"));

  const auto session = ResultStore::latest(results, "e2e-host");
  ASSERT_TRUE(session.has_value());
  auto store = ResultStore::open(*session);
  ASSERT_TRUE(store.ok());
  const std::vector<RunRecord> records = *store->load_all();
  ASSERT_EQ(records.size(), 2u) << *read_file(log);
  std::map<std::string, double> faults;
  for (const auto& r : records) {
    EXPECT_TRUE(r.ok()) << r.reason;
    EXPECT_EQ(r.provenance.backend, "host");
    EXPECT_EQ(r.provenance.accel, "none");
    EXPECT_EQ(r.provenance.guests_beside, 0);  // -j 2 asked, but the host backend runs alone
    EXPECT_EQ(r.provenance.guest.release + " x86_64",
              r.provenance.host.kernel);  // the host's own kernel
    KeyValues set = r.knobs_set;
    auto value = [&](const std::string& k) {
      for (const auto& [path, v] : set)
        if (path == k) return v;
      return std::string("<absent>");
    };
    const std::string want = r.id.knob_set.name;
    EXPECT_NE(value("enabled").find("[" + want + "]"), std::string::npos) << value("enabled");
    EXPECT_NE(value("hugepages-64kB/enabled").find("[" + want + "]"), std::string::npos);
    EXPECT_FALSE(r.knobs_found.empty());  // the host's THP state as found, in the record
    ASSERT_FALSE(r.samples("faults").empty());
    faults[want] = r.samples("faults")[0];
  }
  // 64 MiB of base pages is 16384 faults; PMD THPs take a few dozen (fallbacks aside).
  EXPECT_GT(faults["never"], 16000);
  EXPECT_LT(faults["always"] * 4, faults["never"]);
}

// A foliolab SIGKILLed with the host's knobs changed cannot restore them itself: the next run
// does, says so, and finishes the matrix; a SIGTERMed one restores before it exits.
TEST(E2EHostBackend, KilledMidRunTheNextStartRestoresAndTerminatedRestoresItself) {
  std::string why;
  if (!host_backend_possible(&why)) GTEST_SKIP() << why;
  HostKnobGuard guard;
  const fs::path yaml = e2e_dir() / "host-killed.yaml";
  ASSERT_TRUE(write_file_atomic(yaml, host_yaml("512M", 10)).ok());
  const fs::path journal = cache_root() / "host" / "knob-journal.json";
  for (int sig : {SIGTERM, SIGKILL}) {
    SCOPED_TRACE(strsignal(sig));
    const fs::path results = e2e_dir() / fmt::format("host-killed-{}", sig);
    fs::remove_all(results);
    const fs::path log = e2e_dir() / fmt::format("host-killed-{}.log", sig);
    fs::remove(log);
    const pid_t cli = spawn_cli({"run", yaml.string(), "--results", results.string()}, log);
    int status = 0;
    // Until the agent changed a knob (no deadline: the image may be built first).
    while (host_knob_differences(guard.before).empty()) {
      if (::waitpid(cli, &status, WNOHANG) == cli)
        FAIL() << "foliolab ended before the kill: " << *read_file(log);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(fs::exists(journal));
    ASSERT_EQ(::kill(cli, sig), 0);
    const int rc = wait_exit(cli);
    if (sig == SIGTERM) {
      EXPECT_EQ(rc, 1) << *read_file(log);  // interrupted
      EXPECT_EQ(host_knob_differences(guard.before), std::vector<std::string>{}) << *read_file(log);
      EXPECT_FALSE(fs::exists(journal));
      continue;
    }
    EXPECT_EQ(rc, 128 + SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // PDEATHSIG ends the agent
    EXPECT_FALSE(host_knob_differences(guard.before).empty());    // nobody restored them yet
    ASSERT_TRUE(fs::exists(journal));
    const pid_t next =
        spawn_cli({"run", yaml.string(), "--results", results.string(), "--resume"}, log);
    EXPECT_EQ(wait_exit(next), 0) << *read_file(log);
    EXPECT_NE(read_file(log)->find("restored"), std::string::npos) << *read_file(log);
    EXPECT_NE(read_file(log)->find("host knob(s) from the journal"), std::string::npos);
    EXPECT_EQ(host_knob_differences(guard.before), std::vector<std::string>{});
    EXPECT_FALSE(fs::exists(journal));
    EXPECT_EQ(count_records(results), 2u);
  }
}

// A real small tmpfs as the results root, filled up after the first run: the matrix stops with a
// host failure naming the full disk and keeps the finished run; once space is freed,
// --resume-dir completes it.
TEST(E2EHostFailures, ResultsDiskFilledMidMatrixStopsAndResumeCompletes) {
  if (::geteuid() != 0) GTEST_SKIP() << "not root: cannot mount a tmpfs";
  const fs::path yaml = e2e_dir() / "disk-full.yaml";
  ASSERT_TRUE(
      write_file_atomic(yaml, small_x86_yaml("  a:\n    enabled: never\n  b:\n    enabled: always\n"
                                             "  c:\n    enabled: madvise\n",
                                             600, "  - name: fault\n    params: {size: 16M}\n"))
          .ok());
  const fs::path results = e2e_dir() / "disk-full-results";
  fs::create_directories(results);
  ASSERT_EQ(::mount("tmpfs", results.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=200m"), 0)
      << std::strerror(errno);
  struct Unmount {
    fs::path dir;
    ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
  } unmount{results};
  const fs::path log = e2e_dir() / "disk-full.log";
  fs::remove(log);
  const pid_t cli =
      spawn_cli({"run", yaml.string(), "--results", results.string(), "-j", "1"}, log);
  int status = 0;
  while (count_records(results) < 1) {
    if (::waitpid(cli, &status, WNOHANG) == cli)
      FAIL() << "foliolab ended before the disk filled: " << *read_file(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const fs::path filler = results / "filler";
  {
    std::FILE* f = std::fopen(filler.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string mib(1 << 20, 'x');
    while (std::fwrite(mib.data(), 1, mib.size(), f) == mib.size()) {
    }
    std::fclose(f);
  }
  // A host failure is the environment's: exit 3 (docs/usage.md, "Exit status").
  EXPECT_EQ(wait_exit(cli), 3) << *read_file(log);
  const std::string out = *read_file(log);
  EXPECT_NE(out.find("error: host failure, matrix stopped: results disk full"), std::string::npos)
      << out;
  EXPECT_NE(out.find("--resume-dir"), std::string::npos) << out;
  const size_t kept = count_records(results);
  EXPECT_GE(kept, 1u);
  EXPECT_LT(kept, 3u);
  auto session = ResultStore::latest(results, "e2e-failures");
  ASSERT_TRUE(session.has_value());
  fs::remove(filler);
  const pid_t resumed = spawn_cli(
      {"run", yaml.string(), "--results", results.string(), "--resume-dir", session->string()},
      log);
  EXPECT_EQ(wait_exit(resumed), 0) << *read_file(log);
  EXPECT_EQ(count_records(results), 3u);
  EXPECT_NE(read_file(log)->find(fmt::format("({} kept from before)", kept)), std::string::npos)
      << *read_file(log);
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

// Every `expect:` of `exp` holds and no run failed.
void expect_all_held(const Experiment& exp, const RunOutcome& s) {
  EXPECT_EQ(s.summary.failed, 0);
  for (const auto& r : s.records) EXPECT_TRUE(r.ok()) << r.id.run_id << ": " << r.reason;
  auto results = evaluate_expectations(exp, s.records);
  ASSERT_EQ(results.size(), exp.expectations.size());
  for (const auto& r : results) {
    std::string details;
    for (const auto& d : expectation_details(r)) details += "\n  " + d;
    EXPECT_TRUE(r.held) << r.name << details;
  }
}

// A TAP-speaking and a regex-read custom program (experiments/examples/*.c) on both arches,
// through the real agent: TAP failures under THP never are results, patterns give metrics. Run as
// a user does, from the repository root with a relative path (issue 27: every custom
// workload failed so, its sources compiled from a scratch folder).
TEST(E2EAdapters, TapAndRegexProgramsOnBothArchesFromTheRepositoryRoot) {
  ScopedTestDir dir("adapters");
  auto r = run_cli(
      {"run", "experiments/examples/adapters.yaml", "--results", (dir / "results").string()},
      kSourceRoot, dir / "run.log");
  EXPECT_TRUE(r.ok()) << r.output;  // exit 1 when a run failed or an expectation did not hold
  auto exp = load_experiment((kSourceRoot / "experiments/examples/adapters.yaml").string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  auto session = ResultStore::latest(dir / "results", "adapters");
  ASSERT_TRUE(session);
  auto records = ResultStore::open(*session)->load_all();
  ASSERT_TRUE(records.ok()) << records.error().message;
  RunOutcome s{.summary = {}, .records = *records};
  ASSERT_EQ(s.records.size(), 8u);
  expect_all_held(*exp, s);
  for (const auto& r : s.records) {
    if (r.id.workload.label != "tap-probe") continue;
    ASSERT_FALSE(r.reps.empty());
    EXPECT_EQ(r.reps[0].tests.size(), 3u) << r.id.run_id;  // each TAP line is a result
  }
}

// Issue 27's second half: `cd my-exp && foliolab run my.yaml` with the experiment's programs
// beside it, one compiled from two sources and one made by its own Makefile (build:), each
// printing a metric the expectations check; the results go to a relative folder too.
TEST(E2EAdapters, AnExperimentFolderRunsItsOwnProgramsFromThere) {
  ScopedTestDir dir("relative-folder");
  ASSERT_TRUE(write_file_atomic(dir / "p.c",
                                "#include <stdio.h>\nint value(void);\n"
                                "int main(void) { printf(\"value:%d\\n\", value()); }\n")
                  .ok());
  ASSERT_TRUE(write_file_atomic(dir / "lib/value.c", "int value(void) { return 27; }\n").ok());
  ASSERT_TRUE(
      write_file_atomic(dir / "prog/main.c",
                        "#include <stdio.h>\nint main(void) { printf(\"value:%d\\n\", 28); }\n")
          .ok());
  ASSERT_TRUE(
      write_file_atomic(dir / "prog/Makefile", "probe: main.c\n\t$(CC) $(LDFLAGS) -o $@ main.c\n")
          .ok());
  ASSERT_TRUE(write_file_atomic(dir / "my.yaml", R"(name: e2e-relative
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64]
machine: {cpus: 1, memory: 512M}
knobs: {default: {}}
workloads:
  - name: custom
    label: two-sources
    params: {source: [p.c, lib/value.c], output: regex}
    metrics: {value: 'value:(\d+)'}
  - name: custom
    label: made
    params: {build: {command: [make], dir: prog, output: probe}, output: regex}
    metrics: {value: 'value:(\d+)'}
repeat: 2
timeout: 300
expect:
  - {runs: {workload: two-sources}, metric: value, "==": 27}
  - {runs: {workload: made}, metric: value, "==": 28}
)")
                  .ok());
  auto r = run_cli({"run", "my.yaml", "--results", "results"}, dir.path(), dir / "run.log");
  EXPECT_TRUE(r.ok()) << r.output;
  EXPECT_NE(r.output.find("held: "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("NOT HELD"), std::string::npos) << r.output;
  auto session = ResultStore::latest(dir / "results", "e2e-relative");
  ASSERT_TRUE(session);
  auto records = ResultStore::open(*session)->load_all();
  ASSERT_TRUE(records.ok()) << records.error().message;
  ASSERT_EQ(records->size(), 2u);
  for (const RunRecord& rec : *records) EXPECT_EQ(rec.status, "ok") << rec.reason;
}

// A config A/B/C as docs/kernels.md runs it (experiments/examples/thp-default-config-ab.yaml),
// with its two new configs removed from the cache first so they are built again: each new O=
// directory starts as a copy of the nearest built one, and thp-never, two options from
// thp-always (built just before it, its objects matching the working tree), recompiles only what
// they reach. The kernels differ as built: THP always allocates THPs, madvise and never none.
TEST(E2EConfigAB, ANewConfigRecompilesOnlyWhatItsOptionsReach) {
  const std::string yaml = "experiments/examples/thp-default-config-ab.yaml";
  auto exp = load_experiment((kSourceRoot / yaml).string());
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  RealProcessRunner proc;
  KernelBuilder builder(proc, {.data_root = kSourceRoot,
                               .spec_dir = kSourceRoot / "experiments/examples",
                               .cache = cache_root()});
  for (const KernelSpec& k : exp->kernels) {
    if (k.name == "thp-madvise") continue;
    auto found = builder.lookup(k, Arch::kX86_64);
    ASSERT_TRUE(found.ok()) << found.error().message;
    fs::remove_all(cache_root() / "kernels" / found->build_id);
  }
  if (fs::exists(cache_root() / "build")) {
    for (const auto& e : fs::directory_iterator(cache_root() / "build")) {
      auto config = read_file(e.path() / ".config");
      if (!config.ok()) continue;
      if (config->find("CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y") != std::string::npos ||
          config->find("CONFIG_TRANSPARENT_HUGEPAGE_NEVER=y") != std::string::npos)
        fs::remove_all(e.path());
    }
  }
  ScopedTestDir dir("config-ab");
  auto r =
      run_cli({"run", yaml, "--results", (dir / "results").string()}, kSourceRoot, dir / "run.log");
  EXPECT_TRUE(r.ok()) << r.output;  // exit 1 when a run failed or an expectation did not hold
  EXPECT_EQ(r.output.find("NOT HELD"), std::string::npos) << r.output;
  auto never = builder.lookup(exp->kernels[2], Arch::kX86_64);
  ASSERT_TRUE(never.ok()) << never.error().message;
  ASSERT_TRUE(never->cached);
  const std::vector<std::string_view> said = split_lines(r.output);
  EXPECT_NE(std::find_if(said.begin(), said.end(),
                         [](std::string_view l) {
                           return l.starts_with("kernel thp-never (x86_64): ") &&
                                  l.find(" seeded from ") != std::string_view::npos &&
                                  l.ends_with("(2 option(s) apart): make rebuilds what they reach");
                         }),
            said.end())
      << r.output;
  // What make compiled for thp-never: mm/huge_memory.c and the version objects, where a cold
  // build compiles 690 objects.
  auto log = read_file(cache_root() / "kernels" / never->build_id / "build.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  std::vector<std::string> compiled;
  for (std::string_view line : split_lines(*log)) {
    if (line.starts_with("  CC ")) compiled.emplace_back(trim(line.substr(5)));
  }
  EXPECT_LE(compiled.size(), 10u) << join(compiled, " ");
  EXPECT_NE(std::find(compiled.begin(), compiled.end(), "mm/huge_memory.o"), compiled.end())
      << join(compiled, " ");
}

// A cut-down kselftest-mm on both arches (cow's ~650 cases and transhuge-stress, about a
// minute of TCG time a rep): the programs are built from the run's tree for each arch, run
// under the agent, and every case passes or is skipped with a reason.
TEST(E2EKselftest, CowAndTransHugeStressOnBothArches) {
  Experiment exp = load_yaml(R"(name: e2e-kselftest
kernels:
  - name: 6.12-mthp-vmstat
    patches: mthp-vmstat
archs: [x86_64, arm64]
machine: {cpus: 1, memory: 1G}
knobs:
  madvise:
    enabled: madvise
    sysctl: {vm/nr_hugepages: 8}
workloads:
  - name: kselftest-mm
    params: {tests: cow transhuge-stress, timeout: 600}
repeat: 2
timeout: 2600
expect:
  - {name: no failures, metric: tap.fail, "==": 0}
  - {name: cow ran its cases, metric: tap.pass, ">": 100}
)",
                             "kselftest.yaml");
  RunOutcome s = run_experiment(exp);
  ASSERT_EQ(s.records.size(), 2u);
  expect_all_held(exp, s);
  for (const auto& r : s.records) {
    ASSERT_EQ(r.reps.size(), 2u);
    bool stress = false;
    for (const auto& t : r.reps[0].tests) {
      stress = stress || t.name.starts_with("transhuge-stress");
      if (t.status == "skip") {
        EXPECT_FALSE(t.reason.empty()) << r.id.run_id << " " << t.name;
      }
    }
    EXPECT_TRUE(stress) << r.id.run_id;
  }
}

}  // namespace
}  // namespace foliolab
