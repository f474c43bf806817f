// Boot benchmarks on real guests, printing ratios measured in one invocation (absolute times on
// a shared 2-core TCG machine are noise; run it on an idle machine):
//   hello [EXPERIMENT.yaml] [--reps N]: QEMU start -> the agent's hello record per boot platform
//     (x86_64: bzImage or vmlinux by PVH, SeaBIOS or qboot, q35 full or trimmed, microvm; arm64
//     virt) with the experiment's kernels (default experiments/quickstart.yaml, the shared guest
//     config) and base images. Ratios against the platform the executor boots today, and x86_64
//     against arm64.
//   overhead EXPERIMENT.yaml [--reps N]: `foliolab run -j 1` wall time against raw QEMU boots of
//   the same
//     kernels, initrds (base image + each run's job.txt) and command lines (the guest's
//     /proc/cmdline from the record), alternating N times (default 3). Goal: <= 1.05x. The
//     experiment's kernels must be cached.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/qemu_args.h"
#include "image/image_builder.h"
#include "kernel/builder.h"
#include "model/loader.h"
#include "results/store.h"
#include "testing/cli_binary.h"
#include "util/build_info.h"
#include "util/cache_root.h"
#include "util/fs.h"
#include "util/process.h"

extern char** environ;

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Timed {
  double hello = -1;  // seconds from spawn to the hello record (-1: never)
  double exit = -1;   // seconds from spawn to the process's exit
  int status = -1;
};

// Spawns argv; when `records` is given, notes when a hello record appears in it. A process still
// running after `deadline` is killed (a guest that hangs at boot must not stall the bench).
Timed spawn_timed(const std::vector<std::string>& argv, const fs::path& records,
                  const fs::path& log, std::chrono::seconds deadline = std::chrono::hours(24)) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  Timed t;
  pid_t pid;
  const auto t0 = Clock::now();
  if (posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    return t;
  }
  posix_spawn_file_actions_destroy(&fa);
  for (;;) {
    if (t.hello < 0 && !records.empty()) {
      if (auto bytes = read_file(records);
          bytes.ok() && bytes->find("@FL1 hello ") != std::string::npos) {
        t.hello = std::chrono::duration<double>(Clock::now() - t0).count();
      }
    }
    if (::waitpid(pid, &t.status, WNOHANG) == pid) break;
    if (Clock::now() - t0 > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &t.status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(records.empty() ? 20 : 2));
  }
  t.exit = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// NUMA nodes the guest kernel set up, from a console at loglevel 7 ("Initmem setup node N").
int numa_nodes_seen(const fs::path& console) {
  auto text = read_file(console);
  if (!text.ok()) return 0;
  int nodes = 0;
  for (size_t at = 0; (at = text->find("Initmem setup node ", at)) != std::string::npos; ++at)
    ++nodes;
  return nodes;
}

// The experiment's kernel (its first) of `arch`, from the kernel cache (built if missing), as the
// full guest kernel (kernel/guest_fragments.h): every platform boots a 2-CPU NUMA machine.
Result<KernelArtifact> experiment_kernel(const Experiment& exp, const fs::path& yaml, Arch arch,
                                         ProcessRunner& proc) {
  KernelBuilder builder(proc, {.data_root = foliolab::source_dir(),
                               .spec_dir = fs::absolute(yaml).parent_path(),
                               .cache = cache_root(),
                               .log = [](const std::string& line) { fmt::print("{}\n", line); }});
  for (const auto& k : exp.kernels) {
    if (k.archs.empty() || std::find(k.archs.begin(), k.archs.end(), arch) != k.archs.end()) {
      KernelSpec full = k;
      full.full_guest = {arch};
      return builder.build(full, arch);
    }
  }
  return make_error(fmt::format("{} builds no {} kernel", yaml.string(), arch_info(arch).name));
}

// QEMU start -> hello per boot platform. x86_64 is tried as: the bzImage under SeaBIOS (how
// QEMU boots a kernel by default), vmlinux by PVH under SeaBIOS, PVH under qboot (QEMU's minimal
// firmware), PVH under qboot on a q35 without the SATA, SMBus, USB and vmport devices it has by
// default (fewer ACPI/PCI devices to probe), and microvm (no PCI, no SRAT: no NUMA). Every
// platform boots the same 2-node NUMA machine; a first boot per platform at loglevel 7 counts the
// NUMA nodes the kernel set up, and each boot's hello record shows the virtio-serial port works.
int hello_bench(int reps, const fs::path& yaml) {
  auto exp = load_experiment(yaml.string());
  if (!exp.ok()) {
    fmt::print(stderr, "error: {}\n", exp.error().message);
    return 2;
  }
  const fs::path tmp =
      fs::temp_directory_path() / fmt::format("foliolab-boot-bench-{}", ::getpid());
  fs::create_directories(tmp);
  RealProcessRunner proc;
  ImageBuilder images(proc, foliolab::source_dir(), cache_root());
  MachineSpec machine{
      .cpus = 2,
      .memory_mb = 1024,
      .numa = {NumaNode{.cpus = {0}, .memory_mb = 512}, NumaNode{.cpus = {1}, .memory_mb = 512}}};
  const fs::path qboot = "/usr/share/qemu/qboot.rom";
  struct Subject {
    std::string label;
    QemuLaunch launch;
    bool is_default = false;  // what foliolab's executor boots today
    int numa_nodes = 0;
    int hangs = 0;
    std::vector<double> hello;
  };
  std::vector<Subject> subjects;  // booted in turn, rep after rep, so load drifts hit all alike
  for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
    const std::string name(arch_info(arch).name);
    auto kernel = experiment_kernel(*exp, yaml, arch, proc);
    auto image = images.build(arch);
    if (!kernel.ok() || !image.ok()) {
      fmt::print("{}: skipped ({})\n", name,
                 !kernel.ok() ? kernel.error().message : image.error().message);
      continue;
    }
    const fs::path initrd = tmp / (name + ".cpio");
    if (!write_run_initrd(image->cpio, "foliolab-job 1\nrun_id bench\n", initrd).ok()) return 1;
    const QemuLaunch base{.arch = arch,
                          .accel = Accel::kTcg,
                          .machine = machine,
                          .kernel = kernel->boot_image,
                          .initrd = initrd,
                          .cmdline = kernel_cmdline(arch, ""),
                          .console_log = tmp / (name + ".console"),
                          .results_file = tmp / (name + ".records")};
    auto add = [&](std::string label, auto&& tweak) {
      Subject s{.label = name + " " + label, .launch = base};
      tweak(s.launch);
      s.is_default = qemu_argv(s.launch) == qemu_argv(base);
      subjects.push_back(std::move(s));
    };
    if (arch == Arch::kArm64) {
      add("virt, Image", [](QemuLaunch&) {});
      continue;
    }
    const bool pvh = kernel->boot_image.filename() == "vmlinux";
    if (kernel->image != kernel->boot_image || !pvh) {
      add("q35, bzImage, SeaBIOS", [&](QemuLaunch& l) { l.kernel = kernel->image; });
    } else {
      fmt::print(
          "x86_64: kernel {} boots vmlinux by PVH and keeps no bzImage (foliolab builds none for "
          "PVH "
          "kernels): the bzImage platform is skipped\n",
          kernel->build_id);
    }
    if (!pvh) {
      fmt::print("x86_64: kernel {} has no vmlinux (CONFIG_PVH): only its bzImage is measured\n",
                 kernel->build_id);
      continue;
    }
    add("q35, vmlinux PVH, SeaBIOS", [](QemuLaunch&) {});
    if (!fs::exists(qboot)) {
      fmt::print("x86_64: {} missing (Debian's qemu-system-data): no qboot platforms\n",
                 qboot.string());
      continue;
    }
    add("q35, vmlinux PVH, qboot", [&](QemuLaunch& l) { l.bios = qboot; });
    add("q35 without SATA/SMBus/USB/vmport, vmlinux PVH, qboot", [&](QemuLaunch& l) {
      l.bios = qboot;
      l.machine_override = "q35,sata=off,smbus=off,usb=off,vmport=off";
    });
    add("microvm, vmlinux PVH", [](QemuLaunch& l) { l.machine_override = "microvm"; });
  }
  if (subjects.empty()) return 1;
  const auto deadline = std::chrono::seconds(60);  // a boot takes seconds; a hang never ends
  for (auto& s : subjects) {  // NUMA check (and a warm page cache for the timed boots)
    QemuLaunch l = s.launch;
    l.cmdline = kernel_cmdline(l.arch, "loglevel=7");
    fs::remove(l.results_file);
    Timed t = spawn_timed(qemu_argv(l), l.results_file, tmp / "qemu.log", deadline);
    s.numa_nodes = numa_nodes_seen(l.console_log);
    if (t.hello < 0) ++s.hangs;
  }
  for (int i = 0; i < reps; ++i) {
    for (size_t k = 0; k < subjects.size(); ++k) {
      Subject& s = subjects[k];
      fs::remove(s.launch.results_file);
      Timed t = spawn_timed(qemu_argv(s.launch), s.launch.results_file, tmp / "qemu.log", deadline);
      if (t.hello < 0) {
        ++s.hangs;  // hung or died before the agent spoke: counted, not timed
        fs::copy_file(s.launch.console_log, tmp / fmt::format("failed-{}-rep{}.console", k, i + 1),
                      fs::copy_options::overwrite_existing);
        continue;
      }
      s.hello.push_back(t.hello);
    }
  }
  const Subject* now = nullptr;
  const Subject* arm = nullptr;
  for (const auto& s : subjects) {
    if (s.is_default && s.launch.arch == Arch::kX86_64) now = &s;
    if (s.launch.arch == Arch::kArm64) arm = &s;
  }
  fmt::print(
      "QEMU start -> agent hello, TCG, 2 vCPUs, 2 NUMA nodes, median of {} boots per platform, "
      "booted in "
      "turn:\n",
      reps);
  for (const auto& s : subjects) {
    std::string vs;
    if (now && s.launch.arch == Arch::kX86_64 && &s != now && !s.hello.empty()) {
      vs = fmt::format("; default / this = {:.2f}x", median(now->hello) / median(s.hello));
    }
    if (arm && s.launch.arch == Arch::kX86_64 && !s.hello.empty()) {
      vs += fmt::format("; this / arm64 = {:.2f}x", median(s.hello) / median(arm->hello));
    }
    fmt::print("  {}{}: {:.2f}s; NUMA nodes {}; failed boots {} of {}{}\n", s.label,
               s.is_default ? " (default)" : "", median(s.hello), s.numa_nodes, s.hangs, reps + 1,
               vs);
  }
  bool kept = false;
  for (const auto& s : subjects) kept = kept || s.hangs > 0;
  if (kept) {
    fmt::print("consoles of failed boots kept in {}\n", tmp.string());
  } else {
    fs::remove_all(tmp);
  }
  return 0;
}

struct OverheadPair {
  double foliolab = 0, own_qemu = 0, raw = 0;
  int runs = 0;
  bool pvh = false;
};

// One `foliolab run -j 1` of the experiment, then raw QEMU boots of each of its runs.
Result<OverheadPair> overhead_pair(const Experiment& exp, const std::string& yaml,
                                   const fs::path& tmp, int i) {
  const fs::path results = tmp / fmt::format("results-{}", i);
  const Timed run =
      spawn_timed({foliolab::cli_binary(), "run", yaml, "-j", "1", "--results", results.string()},
                  {}, tmp / "foliolab.log");
  auto session = ResultStore::latest(results, exp.name);
  if (!session)
    return make_error("foliolab run made no session; see " + (tmp / "foliolab.log").string());
  auto store = ResultStore::open(*session);
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  OverheadPair p{.foliolab = run.exit};
  for (const auto& r : *records) {
    if (!r.ok()) return make_error(fmt::format("run {} failed: {}", r.id.run_id, r.reason));
    const fs::path image = cache_root() / "images" /
                           fmt::format("{}-{}", r.id.arch, r.provenance.image_id) /
                           "initramfs.cpio";
    auto job = read_file(store->run_dir(r.id.run_id) / r.artifacts.job);
    const fs::path initrd = tmp / "initrd.cpio";
    if (!job.ok() || !write_run_initrd(image, *job, initrd).ok()) {
      return make_error("cannot rebuild the initrd of " + r.id.run_id);
    }
    // The file QEMU booted (vmlinux by PVH, or the bzImage/Image), from the recorded command.
    fs::path kernel = r.provenance.kernel_image;
    if (auto k = r.provenance.command.find(" -kernel "); k != std::string::npos) {
      const size_t from = k + 9;
      kernel = r.provenance.command.substr(from, r.provenance.command.find(' ', from) - from);
    }
    p.pvh = kernel.filename() == "vmlinux";
    QemuLaunch l{.arch = *parse_arch(r.id.arch),
                 .accel = Accel::kTcg,
                 .machine = exp.machine,
                 .kernel = kernel,
                 .initrd = initrd,
                 .cmdline = r.provenance.guest.cmdline,
                 .console_log = tmp / "console.log",
                 .results_file = tmp / "records.bin"};
    fs::remove(l.results_file);
    p.raw += spawn_timed(qemu_argv(l), {}, tmp / "qemu.log").exit;
    p.own_qemu += r.provenance.boot_seconds;
    ++p.runs;
  }
  return p;
}

int overhead_bench(const std::string& yaml, int reps) {
  auto exp = load_experiment(yaml);
  if (!exp.ok()) {
    fmt::print(stderr, "error: {}\n", exp.error().message);
    return 2;
  }
  const fs::path tmp =
      fs::temp_directory_path() / fmt::format("foliolab-overhead-bench-{}", ::getpid());
  fs::create_directories(tmp);
  // foliolab and raw boots alternate, pair after pair: the ratio of each pair sees about the
  // same load; the median pair is the answer.
  std::vector<double> vs_raw, vs_own;
  for (int i = 0; i < reps; ++i) {
    auto p = overhead_pair(*exp, yaml, tmp, i);
    if (!p.ok()) {
      fmt::print(stderr, "error: {}\n", p.error().message);
      return 1;
    }
    fmt::print(
        "pair {}: foliolab run -j 1 {:.2f}s for {} runs (its QEMU processes {:.2f}s); raw QEMU "
        "boots of "
        "the same kernel ({})+initrd+cmdline {:.2f}s: {:.3f}x\n",
        i + 1, p->foliolab, p->runs, p->own_qemu, p->pvh ? "vmlinux, PVH" : "bzImage/Image", p->raw,
        p->foliolab / p->raw);
    vs_raw.push_back(p->foliolab / p->raw);
    vs_own.push_back(p->foliolab / p->own_qemu);
  }
  fmt::print(
      "overhead: foliolab / raw QEMU = {:.3f}x (median of {} pairs; goal <= 1.05x); foliolab / its "
      "own "
      "QEMU time = {:.3f}x\n",
      median(vs_raw), reps, median(vs_own));
  fs::remove_all(tmp);
  return 0;
}

}  // namespace
}  // namespace foliolab

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "hello") {
    int reps = 5;
    std::filesystem::path yaml =
        std::filesystem::path(foliolab::source_dir()) / "experiments/quickstart.yaml";
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--reps" && i + 1 < args.size()) {
        reps = std::max(1, std::stoi(args[++i]));
      } else {
        yaml = args[i];
      }
    }
    return foliolab::hello_bench(reps, yaml);
  }
  if (args.size() >= 2 && args[0] == "overhead") {
    const int reps = args.size() == 4 && args[2] == "--reps" ? std::max(1, std::stoi(args[3])) : 3;
    return foliolab::overhead_bench(args[1], reps);
  }
  std::fprintf(stderr,
               "usage: foliolab_boot_bench hello [EXPERIMENT.yaml] [--reps N] | overhead "
               "EXPERIMENT.yaml [--reps N]\n");
  return 2;
}
