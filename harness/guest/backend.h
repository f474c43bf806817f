// How a guest gets booted. QemuBackend runs QEMU directly; LibvirtBackend goes through libvirtd.
// Both only boot and collect: deciding whether the run succeeded is the record stream's job
// (QEMU exits 0 after a kernel panic too).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "guest/qemu_args.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct BootRequest {
  Arch arch = Arch::kX86_64;
  MachineSpec machine;
  std::filesystem::path kernel;
  std::filesystem::path initrd;
  std::string cmdline;            // complete
  std::filesystem::path run_dir;  // console.log and records.bin go here
  std::chrono::seconds timeout{600};
};

struct BootOutcome {
  Accel accel = Accel::kTcg;
  std::string emulator;          // "QEMU emulator version 7.2.19 (Debian ...)"
  std::string backend;           // "qemu", "libvirt"
  bool timed_out = false;
  std::string exit;              // how the emulator ended, for humans
  std::filesystem::path console_log;
  std::filesystem::path records_file;
  std::string command;           // reproduction command line
  double seconds = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual Result<BootOutcome> boot(const BootRequest& req) = 0;
};

// KVM applies when /dev/kvm opens read-write and the guest arch is the host's.
Accel choose_accel(Arch guest);

class QemuBackend : public Backend {
 public:
  explicit QemuBackend(ProcessRunner& runner) : runner_(runner) {}
  std::string name() const override { return "qemu"; }
  Result<BootOutcome> boot(const BootRequest& req) override;

 private:
  Result<std::string> emulator_version(Arch arch);
  ProcessRunner& runner_;
  std::map<Arch, std::string> versions_;
};

}  // namespace foliolab
