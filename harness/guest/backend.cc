#include "guest/backend.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace foliolab {
namespace fs = std::filesystem;

Accel choose_accel(Arch guest) {
  if (guest != host_arch()) return Accel::kTcg;
  int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) return Accel::kTcg;
  ::close(fd);
  return Accel::kKvm;
}

Result<std::string> QemuBackend::emulator_version(Arch arch) {
  if (auto it = versions_.find(arch); it != versions_.end()) return it->second;
  const std::string bin(arch_info(arch).qemu_binary);
  ProcessResult r = runner_.run({.argv = {bin, "--version"}, .capture = true});
  if (!r.ok()) {
    return make_error(fmt::format("{} is not usable ({}); scripts/setup.sh installs it", bin, r.describe()));
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
  out.accel = choose_accel(req.arch);
  out.console_log = req.run_dir / "console.log";
  out.records_file = req.run_dir / "records.bin";
  std::error_code ec;
  fs::create_directories(req.run_dir, ec);
  fs::remove(out.records_file, ec);
  fs::remove(out.console_log, ec);
  QemuLaunch launch{.arch = req.arch, .accel = out.accel, .machine = req.machine, .kernel = req.kernel,
                    .initrd = req.initrd, .cmdline = req.cmdline, .console_log = out.console_log,
                    .results_file = out.records_file};
  auto argv = qemu_argv(launch);
  out.command = format_argv(argv);
  ProcessResult r = runner_.run({.argv = argv, .log_path = req.run_dir / "qemu.log", .timeout = req.timeout,
                                 .kill_grace = std::chrono::seconds(3)});
  if (!r.spawn_error.empty()) return make_error("cannot start QEMU: " + r.spawn_error);
  out.timed_out = r.timed_out;
  out.exit = r.describe();
  out.seconds = r.elapsed.count() / 1000.0;
  return out;
}

}  // namespace foliolab
