// Boot benchmarks on real guests, printing ratios measured in one invocation (absolute times on
// a shared 2-core TCG machine are noise; run it on an idle machine):
//   hello [--reps N]: QEMU start -> the agent's hello record, per arch (x86_64 q35, arm64 virt),
//     with the newest cached kernel of each arch and its base image, via the QemuLaunch the
//     executor uses (x86_64: its boot image, vmlinux by PVH when kept; --x86-kernel PATH to
//     compare another in turn with it, e.g. a vmlinux against the bzImage). Ratios x86_64 / arm64
//     and between the two x86_64 kernels.
//   overhead EXPERIMENT.yaml [--reps N]: `foliolab run -j 1` wall time against raw QEMU boots of the same
//     kernels, initrds (base image + each run's job.txt) and command lines (the guest's
//     /proc/cmdline from the record), alternating N times (default 3). Goal: <= 1.05x. The experiment's kernels must be cached.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "guest/qemu_args.h"
#include "image/image_builder.h"
#include "model/loader.h"
#include "results/store.h"
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

// Spawns argv; when `records` is given, notes when a hello record appears in it.
Timed spawn_timed(const std::vector<std::string>& argv, const fs::path& records, const fs::path& log) {
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
      if (auto bytes = read_file(records); bytes.ok() && bytes->find("@FL1 hello ") != std::string::npos) {
        t.hello = std::chrono::duration<double>(Clock::now() - t0).count();
      }
    }
    if (::waitpid(pid, &t.status, WNOHANG) == pid) break;
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

// The newest cached kernel image of `arch` (by kernel.json's mtime), or nothing.
std::optional<fs::path> newest_kernel(const fs::path& cache, Arch arch) {
  std::optional<fs::path> best;
  fs::file_time_type when{};
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(cache / "kernels", ec)) {
    auto meta = read_file(d.path() / "kernel.json");
    if (!meta.ok()) continue;
    auto j = nlohmann::json::parse(*meta, nullptr, false);
    if (!j.is_object() || j.value("arch", "") != arch_info(arch).name) continue;
    fs::path image = d.path() / fs::path(std::string(arch_info(arch).image_path)).filename();
    if (arch == Arch::kX86_64 && fs::exists(d.path() / "vmlinux")) image = d.path() / "vmlinux";  // PVH
    if (!fs::exists(image) || (best && fs::last_write_time(d.path() / "kernel.json") < when)) continue;
    best = image;
    when = fs::last_write_time(d.path() / "kernel.json");
  }
  return best;
}

int hello_bench(int reps, const std::optional<fs::path>& x86_kernel) {
  const fs::path cache = cache_root();
  const fs::path tmp = fs::temp_directory_path() / fmt::format("foliolab-boot-bench-{}", ::getpid());
  fs::create_directories(tmp);
  RealProcessRunner proc;
  ImageBuilder images(proc, FOLIOLAB_SOURCE_DIR, cache);
  struct Subject {
    std::string label;
    QemuLaunch launch;
    std::vector<double> hello, total;
  };
  std::vector<Subject> subjects;  // booted in turn, rep after rep, so load drifts hit all alike
  for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
    const std::string name(arch_info(arch).name);
    std::vector<fs::path> kernels;
    if (auto k = newest_kernel(cache, arch)) kernels.push_back(*k);
    if (arch == Arch::kX86_64 && x86_kernel) kernels.push_back(*x86_kernel);
    auto image = images.build(arch);
    if (kernels.empty() || !image.ok()) {
      fmt::print("{}: skipped (no cached kernel or image)\n", name);
      continue;
    }
    const fs::path initrd = tmp / (name + ".cpio");
    if (!write_run_initrd(image->cpio, "foliolab-job 1\nrun_id bench\n", initrd).ok()) return 1;
    for (const auto& kernel : kernels) {
      const std::string label = fmt::format("{} ({}, {})", name, arch_info(arch).qemu_machine, kernel.filename().string());
      subjects.push_back({label, QemuLaunch{.arch = arch, .accel = Accel::kTcg,
                                            .machine = MachineSpec{.cpus = 1, .memory_mb = 1024}, .kernel = kernel,
                                            .initrd = initrd, .cmdline = kernel_cmdline(arch, ""),
                                            .console_log = tmp / (name + ".console"),
                                            .results_file = tmp / (name + ".records")}});
    }
  }
  for (int i = 0; i < reps; ++i) {
    for (auto& s : subjects) {
      fs::remove(s.launch.results_file);
      Timed t = spawn_timed(qemu_argv(s.launch), s.launch.results_file, tmp / "qemu.log");
      if (t.hello < 0) {
        fmt::print("{}: no hello record (see {})\n", s.label, s.launch.console_log.string());
        return 1;
      }
      s.hello.push_back(t.hello);
      s.total.push_back(t.exit);
    }
  }
  for (const auto& s : subjects) {
    fmt::print("{}: QEMU start -> hello {:.2f}s, -> QEMU exit {:.2f}s (median of {}, tcg; {})\n", s.label,
               median(s.hello), median(s.total), reps, s.launch.kernel.string());
  }
  const Subject* arm = nullptr;
  for (const auto& s : subjects) if (s.launch.arch == Arch::kArm64) arm = &s;
  for (const auto& s : subjects) {
    if (arm && s.launch.arch == Arch::kX86_64) {
      fmt::print("hello latency {} / arm64 = {:.2f}x\n", s.label, median(s.hello) / median(arm->hello));
    }
  }
  if (subjects.size() >= 2 && subjects[1].launch.arch == Arch::kX86_64) {
    fmt::print("hello latency {} / {} = {:.2f}x\n", subjects[0].label, subjects[1].label,
               median(subjects[0].hello) / median(subjects[1].hello));
  }
  fs::remove_all(tmp);
  return 0;
}

struct OverheadPair {
  double foliolab = 0, own_qemu = 0, raw = 0;
  int runs = 0;
  bool pvh = false;
};

// One `foliolab run -j 1` of the experiment, then raw QEMU boots of each of its runs.
Result<OverheadPair> overhead_pair(const Experiment& exp, const std::string& yaml, const fs::path& tmp, int i) {
  const fs::path results = tmp / fmt::format("results-{}", i);
  const Timed run = spawn_timed({FOLIOLAB_CLI, "run", yaml, "-j", "1", "--results", results.string()}, {},
                                tmp / "foliolab.log");
  auto session = ResultStore::latest(results, exp.name);
  if (!session) return make_error("foliolab run made no session; see " + (tmp / "foliolab.log").string());
  auto store = ResultStore::open(*session);
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  OverheadPair p{.foliolab = run.exit};
  for (const auto& r : *records) {
    if (!r.ok()) return make_error(fmt::format("run {} failed: {}", r.id.run_id, r.reason));
    const fs::path image =
        cache_root() / "images" / fmt::format("{}-{}", r.id.arch, r.provenance.image_id) / "initramfs.cpio";
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
    QemuLaunch l{.arch = *parse_arch(r.id.arch), .accel = Accel::kTcg, .machine = exp.machine, .kernel = kernel,
                 .initrd = initrd, .cmdline = r.provenance.guest.cmdline, .console_log = tmp / "console.log",
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
  const fs::path tmp = fs::temp_directory_path() / fmt::format("foliolab-overhead-bench-{}", ::getpid());
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
    fmt::print("pair {}: foliolab run -j 1 {:.2f}s for {} runs (its QEMU processes {:.2f}s); raw QEMU boots of "
               "the same kernel ({})+initrd+cmdline {:.2f}s: {:.3f}x\n", i + 1, p->foliolab, p->runs, p->own_qemu,
               p->pvh ? "vmlinux, PVH" : "bzImage/Image", p->raw, p->foliolab / p->raw);
    vs_raw.push_back(p->foliolab / p->raw);
    vs_own.push_back(p->foliolab / p->own_qemu);
  }
  fmt::print("overhead: foliolab / raw QEMU = {:.3f}x (median of {} pairs; goal <= 1.05x); foliolab / its own "
             "QEMU time = {:.3f}x\n", median(vs_raw), reps, median(vs_own));
  fs::remove_all(tmp);
  return 0;
}

}  // namespace
}  // namespace foliolab

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "hello") {
    int reps = 3;
    std::optional<std::filesystem::path> x86_kernel;  // e.g. a vmlinux (PVH) against the bzImage
    for (size_t i = 1; i + 1 < args.size(); i += 2) {
      if (args[i] == "--reps") reps = std::max(1, std::stoi(args[i + 1]));
      if (args[i] == "--x86-kernel") x86_kernel = args[i + 1];
    }
    return foliolab::hello_bench(reps, x86_kernel);
  }
  if (args.size() >= 2 && args[0] == "overhead") {
    const int reps = args.size() == 4 && args[2] == "--reps" ? std::max(1, std::stoi(args[3])) : 3;
    return foliolab::overhead_bench(args[1], reps);
  }
  std::fprintf(stderr, "usage: foliolab_boot_bench hello [--reps N] [--x86-kernel PATH] | overhead EXPERIMENT.yaml [--reps N]\n");
  return 2;
}
