#include "backend/backend.h"

#include <fmt/format.h>

namespace foliolab {
namespace fs = std::filesystem;

void prepare_boot_files(const BootRequest& req, BootOutcome& out) {
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  std::error_code ec;
  fs::create_directories(req.run_dir, ec);
  fs::remove(out.records_file, ec);
  fs::remove(out.console_log, ec);
}

Result<std::string> QemuBackend::emulator_version(Arch arch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = versions_.find(arch); it != versions_.end()) return it->second;
  const std::string bin(arch_info(arch).qemu_binary);
  ProcessResult r = runner_.run({.argv = {bin, "--version"}, .capture = true});
  if (!r.ok()) {
    return make_error(
        fmt::format("{} is not usable ({}); scripts/setup.sh installs it", bin, r.describe()));
  }
  std::string v = r.output.substr(0, r.output.find('\n'));
  versions_[arch] = v;
  return v;
}

Result<BootOutcome> QemuBackend::boot(const BootRequest& req) {
  BootOutcome out;
  out.backend = name();
  auto version = emulator_version(req.arch);
  if (!version.ok()) return version.error();
  out.emulator = *version;
  out.accel = req.accel;
  prepare_boot_files(req, out);
  std::error_code ec;
  QemuLaunch launch{.arch = req.arch,
                    .accel = out.accel,
                    .machine = req.machine,
                    .kernel = req.kernel,
                    .initrd = req.initrd,
                    .cmdline = req.cmdline,
                    .console_log = out.console_log,
                    .results_file = out.records_file,
                    .root_disk = req.root_disk,
                    .root_disk_writable = req.root_disk_writable,
                    .swap_disk = req.swap_disk,
                    .scratch_disk = req.scratch_disk};
  auto argv = qemu_argv(launch);
  out.command = format_argv(argv);
  const fs::path log = req.run_dir / "qemu.log";
  fs::remove(log, ec);
  ProcessResult r = runner_.run({.argv = argv,
                                 .log_path = log,
                                 .timeout = req.timeout,
                                 .kill_grace = std::chrono::seconds(3)});
  if (!r.spawn_error.empty()) return make_error("cannot start QEMU: " + r.spawn_error);
  out.timed_out = r.timed_out;
  // A timeout or an interruption is our doing, not the emulator's.
  out.abnormal_exit = !r.timed_out && !r.cancelled && (r.signal != 0 || r.exit_code != 0);
  out.exit = out.abnormal_exit ? emulator_failure(r, log) : r.describe();
  out.seconds = r.elapsed.count() / 1000.0;
  return out;
}

}  // namespace foliolab
