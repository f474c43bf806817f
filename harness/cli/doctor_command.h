// `foliolab doctor`: every program foliolab runs, the Debian package it comes from and what
// needs it, from the one package list (cli/package_list.h); exit 3 naming the apt-get line when
// a program the main job needs is missing from PATH.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/package_list.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

struct DoctorReport {
  std::string table;                  // program, package, found at / MISSING, what needs it
  std::vector<std::string> missing;   // [run] packages with a program not on PATH
  std::vector<std::string> optional;  // [recommends] packages likewise
};

// `find` looks a program up (find_program: PATH); only [run] and [recommends] entries count.
DoctorReport check_programs(const std::vector<PackageEntry>& list,
                            const std::function<std::string(const std::string&)>& find);

// One fact about the machine beyond its programs: what it is and what it means for runs.
struct MachineCheck {
  std::string what;     // "kvm", "foreign arch", "cache disk"
  std::string verdict;  // one line
  bool blocks = false;  // the main job cannot run
};

// The cache's file system: the main job's first run writes about 2.5 GB (a 6.12 source tree
// 1.7 GB, two build folders, kernels, images), so under kMinCacheFreeBytes it cannot run and
// under kLowCacheFreeBytes (root filesystems, more kernels) it is said to be low.
constexpr uint64_t kMinCacheFreeBytes = 4ull << 30;
constexpr uint64_t kLowCacheFreeBytes = 16ull << 30;
MachineCheck check_cache_disk(const std::string& cache, uint64_t free_bytes);

// How another arch's Debian image gets its programs configured: binfmt in a user namespace of
// its own (Linux 6.7+ and qemu-user-static), else a second-stage guest; arch-test is needed by
// mmdebstrap either way.
MachineCheck check_foreign(const std::string& kernel_release, bool has_qemu_user,
                           bool has_arch_test);

// KVM as the smoke test found it (backend/kvm_smoke.h): `device` whether /dev/kvm opens,
// `smoke_ok`/`why` what the firmware boot said. Never blocks: TCG runs every guest.
MachineCheck check_kvm(bool device, bool smoke_ran, bool smoke_ok, const std::string& why);

std::function<int()> setup_doctor(CLI::App& app);

}  // namespace foliolab::cli
