#include "backend/kvm_smoke.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "util/fs.h"

namespace foliolab {
namespace {

// kvm_smoke.S from offset 0 (code, GDT, GDTR) and at 0xfff0 (the reset vector's far jump).
constexpr std::array<unsigned char, 149> kCode = {
    0xfa, 0x31, 0xc0, 0x8e, 0xd8, 0x2e, 0x66, 0x0f, 0x01, 0x16, 0x90, 0x00, 0x0f, 0x20, 0xc0,
    0x66, 0x83, 0xc8, 0x01, 0x0f, 0x22, 0xc0, 0x66, 0xea, 0x1e, 0x00, 0x0f, 0x00, 0x08, 0x00,
    0x66, 0xb8, 0x10, 0x00, 0x8e, 0xd8, 0x8e, 0xc0, 0x8e, 0xd0, 0xbf, 0x00, 0x00, 0x10, 0x00,
    0x31, 0xc9, 0x89, 0xc8, 0xc1, 0xe0, 0x16, 0x0d, 0x83, 0x00, 0x00, 0x00, 0x89, 0x04, 0x8f,
    0x41, 0x83, 0xf9, 0x20, 0x72, 0xed, 0x0f, 0x20, 0xe0, 0x83, 0xc8, 0x10, 0x0f, 0x22, 0xe0,
    0xb8, 0x00, 0x00, 0x10, 0x00, 0x0f, 0x22, 0xd8, 0x0f, 0x20, 0xc0, 0x0d, 0x00, 0x00, 0x00,
    0x80, 0x0f, 0x22, 0xc0, 0xbf, 0x00, 0x00, 0x80, 0x00, 0x89, 0x3f, 0x81, 0xc7, 0x00, 0x10,
    0x00, 0x00, 0x81, 0xff, 0x00, 0x00, 0x80, 0x07, 0x72, 0xf0, 0xb0, 0x31, 0xe6, 0xf4, 0xf4,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x9a, 0xcf,
    0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x92, 0xcf, 0x00, 0x17, 0x00, 0x78, 0x00, 0x0f};
constexpr std::array<unsigned char, 5> kResetVector = {0xea, 0x00, 0x00, 0x00, 0xf0};
constexpr size_t kResetOffset = 0xfff0;
constexpr size_t kFirmwareSize = 0x10000;
// isa-debug-exit: QEMU exits with (value << 1) | 1; the firmware writes 0x31.
constexpr int kSmokeExit = (0x31 << 1) | 1;

double seconds(std::chrono::milliseconds t) { return t.count() / 1000.0; }

}  // namespace

std::string kvm_smoke_firmware() {
  std::string fw(kFirmwareSize, '\0');
  std::copy(kCode.begin(), kCode.end(), fw.begin());
  std::copy(kResetVector.begin(), kResetVector.end(), fw.begin() + kResetOffset);
  return fw;
}

std::vector<std::string> kvm_smoke_argv(const std::string& qemu,
                                        const std::filesystem::path& firmware,
                                        const std::string& accel) {
  return {qemu,
          "-M",
          "q35",
          "-accel",
          accel,
          "-cpu",
          "max",
          "-m",
          "128",
          "-smp",
          "1",
          "-nodefaults",
          "-display",
          "none",
          "-no-reboot",
          "-bios",
          firmware.string(),
          "-device",
          "isa-debug-exit,iobase=0xf4,iosize=0x04"};
}

Result<KvmSmoke> run_kvm_smoke(ProcessRunner& runner, const KvmSmokeOptions& opt) {
  std::error_code ec;
  std::filesystem::create_directories(opt.dir, ec);
  if (ec)
    return make_env_error(fmt::format("cannot create {}: {}", opt.dir.string(), ec.message()));
  const std::filesystem::path fw = opt.dir / "kvm-smoke.bin";
  if (auto st = write_file_atomic(fw, kvm_smoke_firmware()); !st.ok()) return st.error();
  const std::filesystem::path tcg_log = opt.dir / "smoke-tcg.log",
                              kvm_log = opt.dir / "smoke-kvm.log";
  ProcessResult tcg = runner.run({.argv = kvm_smoke_argv(opt.qemu, fw, "tcg"),
                                  .log_path = tcg_log,
                                  .timeout = opt.tcg_deadline,
                                  .kill_grace = std::chrono::seconds(2)});
  if (tcg.exit_code != kSmokeExit || tcg.signal != 0 || tcg.timed_out) {
    return make_env_error(
        fmt::format("the KVM smoke test's firmware did not run under TCG ({}; log {})",
                    tcg.describe(), tcg_log.string()));
  }
  KvmSmoke out{.tcg_seconds = seconds(tcg.elapsed), .kvm_log = kvm_log};
  const auto deadline = std::max(
      opt.min_deadline,
      std::chrono::milliseconds(static_cast<long long>(tcg.elapsed.count() * opt.tcg_multiple)));
  out.deadline_seconds = seconds(deadline);
  out.kvm = runner.run({.argv = kvm_smoke_argv(opt.qemu, fw, "kvm"),
                        .log_path = kvm_log,
                        .timeout = deadline,
                        .kill_grace = std::chrono::seconds(2)});
  out.kvm_ok = out.kvm.exit_code == kSmokeExit && out.kvm.signal == 0 && !out.kvm.timed_out;
  return out;
}

}  // namespace foliolab
