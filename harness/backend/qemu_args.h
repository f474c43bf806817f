// QEMU command lines built by a pure function (unit-tested per arch), never a shell string.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/experiment.h"

namespace foliolab {

enum class Accel { kKvm, kTcg, kNone };  // kNone: no emulator (the host backend)
std::string accel_name(Accel a);

inline constexpr const char* kResultsPortName = "org.foliolab.results";
// QEMU's -icount value under machine.timing: icount (1 ns of guest time per instruction; the
// docs/backends.md, "Timing modes", has the measurements behind it).
inline constexpr const char* kIcountOptions = "shift=0,sleep=off";

struct QemuLaunch {
  Arch arch = Arch::kX86_64;
  Accel accel = Accel::kTcg;
  MachineSpec machine;
  std::filesystem::path kernel;
  std::filesystem::path initrd;
  std::string cmdline;  // complete kernel command line
  std::filesystem::path console_log;
  std::filesystem::path results_file;
  // A Debian root filesystem (machine.image): a raw ext4 file on virtio-blk, the guest's /dev/vda,
  // with snapshot=on (QEMU opens the file read-only and keeps the guest's writes in a temporary
  // overlay: each run starts from the same bytes, and parallel guests share the file).
  std::filesystem::path root_disk;
  // The root disk's writes go to the file (no snapshot): only the second stage of an image build
  // (image/second_stage.h), which installs the packages into it.
  bool root_disk_writable = false;
  // machine.swap type disk: a raw file of this run's alone, writable, on virtio-blk after the root
  // disk, found by the agent through its serial (protocol/job.h kSwapDiskSerial).
  std::filesystem::path swap_disk;
  // fragment method churn: this run's ext4 scratch disk, writable, after the swap disk, found by
  // the agent through its serial (protocol/job.h kScratchDiskSerial).
  std::filesystem::path scratch_disk;
  bool prealloc = true;  // back guest RAM up front: TCG timings are stable only then
  // Boot-platform overrides (the boot bench compares them): -M value instead of the arch's
  // machine, and a firmware image for -bios. Empty: the arch's defaults.
  std::string machine_override;
  std::filesystem::path bios;
};

std::vector<std::string> qemu_argv(const QemuLaunch& launch);

// Kernel command line: console, panic=-1 (a panic ends QEMU with -no-reboot), rdinit, extras.
std::string kernel_cmdline(Arch arch, const std::string& extra);

}  // namespace foliolab
