#include "cli/doctor_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backend/kvm_smoke.h"
#include "cli/cli_util.h"
#include "image/foreign_exec.h"
#include "util/cache_root.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab::cli {
namespace {

void add_once(std::vector<std::string>* list, const std::string& package) {
  if (list->empty() || list->back() != package) list->push_back(package);
}

}  // namespace

DoctorReport check_programs(const std::vector<PackageEntry>& list,
                            const std::function<std::string(const std::string&)>& find) {
  DoctorReport r;
  r.table = fmt::format("{:<22} {:<24} {:<34} {}\n", "program", "package", "found", "needed by");
  for (const PackageEntry& e : list) {
    if (e.section != "run" && e.section != "recommends") continue;
    const bool needed = e.section == "run";
    for (const std::string& program : e.programs) {
      const std::string at = find(program);
      if (at.empty()) add_once(needed ? &r.missing : &r.optional, e.package);
      const std::string found = !at.empty() ? at : needed ? "MISSING" : "missing (optional)";
      r.table += fmt::format("{:<22} {:<24} {:<34} {}\n", program, e.package, found, e.why);
    }
  }
  return r;
}

MachineCheck check_cache_disk(const std::string& cache, uint64_t free_bytes) {
  const double gib = static_cast<double>(free_bytes) / (1ull << 30);
  if (free_bytes < kMinCacheFreeBytes) {
    return {
        "cache disk",
        fmt::format("{:.1f} GiB free for {}: the first run writes about 2.5 GB (a kernel source "
                    "tree, build folders); free some or set FOLIOLAB_CACHE",
                    gib, cache),
        true};
  }
  if (free_bytes < kLowCacheFreeBytes) {
    return {"cache disk",
            fmt::format("{:.1f} GiB free for {}: enough for the quickstart, low for root "
                        "filesystems and many kernels",
                        gib, cache)};
  }
  return {"cache disk", fmt::format("{:.1f} GiB free for {}", gib, cache)};
}

MachineCheck check_foreign(const std::string& kernel_release, bool has_qemu_user,
                           bool has_arch_test) {
  if (!has_arch_test) {
    return {"foreign arch",
            "arch-test missing: mmdebstrap cannot make another arch's root filesystem (arm64 "
            "images); sudo apt-get install arch-test",
            false};
  }
  if (binfmt_per_user_namespace(kernel_release) && has_qemu_user) {
    return {"foreign arch",
            "arm64 images are configured through binfmt_misc in a user namespace "
            "of their own (kernel " +
                kernel_release + ", qemu-user-static)"};
  }
  return {"foreign arch",
          "arm64 images are configured in a second-stage arm64 guest (" +
              std::string(has_qemu_user ? "kernel " + kernel_release +
                                              " has no per-namespace binfmt_misc (6.7+)"
                                        : "no qemu-user-static") +
              "): slower, same result"};
}

MachineCheck check_kvm(bool device, bool smoke_ran, bool smoke_ok, const std::string& why) {
  if (!device) return {"kvm", "/dev/kvm cannot be opened: every guest runs under TCG (emulated)"};
  if (!smoke_ran) return {"kvm", "not tested (" + why + "): a run probes before it uses KVM"};
  if (smoke_ok) {
    return {"kvm", "the smoke test passed under KVM: a run still probe-boots its guest first"};
  }
  return {"kvm", "unusable: " + why + "; every guest runs under TCG"};
}

namespace {

uint64_t free_bytes_at(std::filesystem::path p) {
  std::error_code ec;
  while (!p.empty() && !std::filesystem::exists(p, ec)) p = p.parent_path();
  struct statvfs st {};
  if (p.empty() || ::statvfs(p.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

MachineCheck kvm_here(const std::string& cache) {
  const int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) return check_kvm(false, false, false, "");
  ::close(fd);
  utsname u{};
  ::uname(&u);
  const std::string qemu = find_program("qemu-system-x86_64");
  if (std::string(u.machine) != "x86_64" || qemu.empty()) {
    return check_kvm(true, false, false, "the smoke test needs an x86_64 host and QEMU");
  }
  const std::filesystem::path dir = std::filesystem::path(cache) / "tmp" / "doctor-kvm";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  RealProcessRunner runner;
  auto smoke = run_kvm_smoke(runner, {.dir = dir, .qemu = qemu});
  if (!smoke.ok()) return check_kvm(true, false, false, smoke.error().message);
  return check_kvm(true, true, smoke->kvm_ok,
                   smoke->kvm.timed_out
                       ? "the smoke firmware did not finish in time"
                       : "QEMU -accel kvm failed (" + smoke->kvm_log.string() + ")");
}

std::vector<MachineCheck> machine_checks() {
  const std::string cache = cache_root().string();
  utsname u{};
  ::uname(&u);
  return {kvm_here(cache),
          check_foreign(u.release, !find_program("qemu-aarch64-static").empty(),
                        !find_program("arch-test").empty()),
          check_cache_disk(cache, free_bytes_at(cache))};
}

}  // namespace

std::function<int()> setup_doctor(CLI::App&) {
  return [] {
    const auto path = package_list_path(data_dir());
    auto text = read_file(path);
    if (!text.ok()) {
      return fail(make_error("the package list " + path.string() + ": " + text.error().message),
                  kExitEnvironment);
    }
    auto list = parse_package_list(*text, path.string());
    if (!list.ok()) return fail(list.error(), kExitEnvironment);
    const DoctorReport r = check_programs(*list, find_program);
    fmt::print("{}", r.table);
    if (!r.optional.empty()) {
      fmt::print("optional: sudo apt-get install {}\n", fmt::join(r.optional, " "));
    }
    bool blocked = false;
    for (const MachineCheck& c : machine_checks()) {
      fmt::print("{:<13} {}\n", c.what + ":", c.verdict);
      blocked = blocked || c.blocks;
    }
    if (blocked && r.missing.empty()) {
      fmt::print(stderr, "error: the main job cannot run on this machine (see above)\n");
      return kExitEnvironment;
    }
    if (r.missing.empty()) {
      fmt::print("the main job can run: every program it needs is on PATH\n");
      return kExitOk;
    }
    fmt::print(stderr,
               "error: the main job cannot run without {}; install: sudo apt-get install {}\n",
               fmt::join(r.missing, ", "), fmt::join(r.missing, " "));
    return kExitEnvironment;
  };
}

}  // namespace foliolab::cli
