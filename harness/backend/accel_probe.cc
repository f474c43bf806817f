#include "backend/accel_probe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstring>
#include <nlohmann/json.hpp>

#include "backend/kvm_smoke.h"
#include "protocol/run_report.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/text.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kVerdictSchema = 1;

// The last non-empty lines of `text`, joined with " | ", at most `max_chars` from the end.
std::string fold_tail(const std::string& text, size_t max_chars = 600) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line = trim(std::string_view(text).substr(start, nl - start));
    if (!line.empty()) out.append(out.empty() ? "" : " | ").append(line);
    start = nl + 1;
  }
  if (out.size() > max_chars) out = "..." + out.substr(out.size() - max_chars);
  return out;
}

// What identifies "this host, this QEMU, this guest arch" for caching a verdict.
struct ProbeKey {
  std::string qemu_path;
  std::string text;  // human-readable, stored beside the verdict
  std::string hash;
};

Result<ProbeKey> probe_key(ProcessRunner& runner, Arch arch, const AccelProbeOptions& opt) {
  const std::string bin(arch_info(arch).qemu_binary);
  ProbeKey key;
  key.qemu_path = find_program(bin);
  if (key.qemu_path.empty())
    return make_error(bin + " not found in PATH; scripts/setup.sh installs it");
  struct stat st {};
  if (::stat(key.qemu_path.c_str(), &st) != 0)
    return make_error(fmt_errno("stat " + key.qemu_path));
  ProcessResult v = runner.run(
      {.argv = {key.qemu_path, "--version"}, .capture = true, .timeout = std::chrono::seconds(60)});
  if (!v.ok()) return make_error(fmt::format("{} --version: {}", key.qemu_path, v.describe()));
  const std::string version = v.output.substr(0, v.output.find('\n'));
  std::string boot_id = "unknown";
  if (auto b = read_file(opt.boot_id_file); b.ok()) boot_id = trim(*b);
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  key.text = fmt::format("host {} boot {}; {} ({} bytes, mtime {}.{:09}); {}; guest {}", host,
                         boot_id, key.qemu_path, static_cast<long long>(st.st_size),
                         static_cast<long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec, version,
                         arch_info(arch).name);
  key.hash = sha256_hex(key.text).substr(0, 16);
  return key;
}

// Stores `v` with what it was probed on (`key`), its logs and the command that decided it.
Result<AccelVerdict> save_verdict(const fs::path& file, const AccelVerdict& v,
                                  const std::string& key, const fs::path& logs,
                                  const std::string& command) {
  json j = {{"schema", kVerdictSchema}, {"accel", accel_name(v.accel)},
            {"reason", v.reason},       {"key", key},
            {"probed_at", utc_stamp()}, {"logs", logs.string()},
            {"command", command}};
  if (auto st = write_file_atomic(file, j.dump(2) + "\n"); !st.ok()) return st.error();
  return v;
}

}  // namespace

std::string emulator_failure(const ProcessResult& r, const fs::path& qemu_log) {
  std::string out = r.describe();
  auto log = read_file(qemu_log);
  if (log.ok()) {
    std::string tail = fold_tail(tail_lines(qemu_log, 6));
    if (!tail.empty()) out += "; " + qemu_log.filename().string() + ": " + tail;
  }
  return out;
}

namespace {

// The smoke test (backend/kvm_smoke.h) first where the arch has one (ArchInfo::kvm_smoke). A TCG
// verdict when KVM failed it; nullopt when it passed (then only the full probe boot can tell).
Result<std::optional<AccelVerdict>> smoke_verdict(ProcessRunner& runner, Arch arch,
                                                  const std::string& qemu, const fs::path& work) {
  if (!arch_info(arch).kvm_smoke) return std::optional<AccelVerdict>();
  auto smoke = run_kvm_smoke(runner, {.dir = work, .qemu = qemu});
  if (!smoke.ok()) return smoke.error();
  if (smoke->kvm_ok) return std::optional<AccelVerdict>();
  if (smoke->kvm.timed_out) {
    return std::optional<AccelVerdict>(AccelVerdict{
        Accel::kTcg,
        fmt::format("under KVM a guest touching 112 MiB with paging on did not finish within "
                    "{:.1f}s (TCG: {:.2f}s)",
                    smoke->deadline_seconds, smoke->tcg_seconds)});
  }
  return std::optional<AccelVerdict>(AccelVerdict{
      Accel::kTcg, "QEMU with -accel kvm " + emulator_failure(smoke->kvm, smoke->kvm_log)});
}

// The verdict of an earlier probe stored in `file`, if it is one this version reads.
std::optional<AccelVerdict> cached_verdict(const fs::path& file) {
  auto text = read_file(file);
  if (!text.ok()) return std::nullopt;
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object() || j.value("schema", 0) != kVerdictSchema) return std::nullopt;
  const std::string accel = j.value("accel", "");
  if (accel != "kvm" && accel != "tcg") return std::nullopt;
  return AccelVerdict{accel == "kvm" ? Accel::kKvm : Accel::kTcg,
                      j.value("reason", "") + " (cached: " + file.string() + ")", true};
}

// What the probe boot `r` (its files in `work`) says of KVM.
AccelVerdict boot_verdict(const ProcessResult& r, const fs::path& work,
                          std::chrono::seconds deadline) {
  const fs::path console = work / "console.log", log = work / "qemu.log";
  auto bytes = read_file(work / "records.bin");
  const RunReport report = parse_run_report(bytes.ok() ? *bytes : std::string());
  if (report.has_hello) {
    return {Accel::kKvm, fmt::format("a KVM probe boot reached the guest agent in {:.1f}s",
                                     r.elapsed.count() / 1000.0)};
  }
  if (r.timed_out) {
    auto text = read_file(console);
    const std::string last = text.ok() ? fold_tail(tail_lines(console, 1), 160) : "";
    return {
        Accel::kTcg,
        last.empty()
            ? fmt::format("under KVM the guest printed nothing within {}s", deadline.count())
            : fmt::format(
                  "under KVM the guest did not reach its init within {}s (last console line: {})",
                  deadline.count(), last)};
  }
  if (!r.ok()) return {Accel::kTcg, "QEMU with -accel kvm " + emulator_failure(r, log)};
  return {Accel::kTcg, "QEMU with -accel kvm exited before the guest agent started; " +
                           emulator_failure(r, log)};
}

}  // namespace

AccelProbe::AccelProbe(ProcessRunner& runner, AccelProbeOptions options)
    : runner_(runner), opt_(std::move(options)) {}

Result<AccelVerdict> accel_without_kvm(const AccelRequest& req, const std::string& why) {
  if (req.choice == AccelChoice::kKvm) {
    return make_error(fmt::format("accel kvm was requested for {} guests, but {}",
                                  arch_info(req.arch).name, why));
  }
  return AccelVerdict{Accel::kTcg, "auto: " + why};
}

Result<AccelVerdict> AccelProbe::resolve(const AccelRequest& req) {
  const std::string arch(arch_info(req.arch).name);
  if (req.choice == AccelChoice::kTcg) return AccelVerdict{Accel::kTcg, "tcg requested"};
  if (req.arch != host_arch()) {
    return accel_without_kvm(req, fmt::format("an {} guest cannot use KVM on an {} host", arch,
                                              arch_info(host_arch()).name));
  }
  int fd = ::open(opt_.kvm_device.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return accel_without_kvm(req, fmt_errno(opt_.kvm_device.string()));
  ::close(fd);
  auto verdict = probe(req.arch, req.images);
  if (!verdict.ok()) return verdict.error();
  if (verdict->accel == Accel::kTcg) return accel_without_kvm(req, verdict->reason);
  return verdict;
}

Result<AccelVerdict> AccelProbe::probe(Arch arch,
                                       const std::function<Result<ProbeImages>()>& images) {
  auto key = probe_key(runner_, arch, opt_);
  if (!key.ok()) return key.error();
  const fs::path dir = opt_.cache_dir / "accel";
  const std::string stem = fmt::format("{}-{}", arch_info(arch).name, key->hash);
  const fs::path verdict_file = dir / (stem + ".json");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_env_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  if (auto v = cached_verdict(verdict_file)) return *v;
  FileLock lock(dir / (stem + ".lock"));
  if (auto v = cached_verdict(verdict_file)) return *v;  // probed by another foliolab meanwhile
  const fs::path work = dir / stem;
  fs::remove_all(work, ec);
  fs::create_directories(work, ec);
  if (ec) return make_env_error(fmt::format("cannot create {}: {}", work.string(), ec.message()));
  if (auto smoke = smoke_verdict(runner_, arch, key->qemu_path, work); !smoke.ok()) {
    return smoke.error();
  } else if (*smoke) {
    return save_verdict(verdict_file, **smoke, key->text, work,
                        format_argv(kvm_smoke_argv(key->qemu_path, work / "kvm-smoke.bin", "kvm")));
  }

  auto img = images();
  if (!img.ok()) return img.error();
  const fs::path console = work / "console.log", records = work / "records.bin",
                 log = work / "qemu.log";
  QemuLaunch launch{.arch = arch,
                    .accel = Accel::kKvm,
                    .machine = MachineSpec{.cpus = 1, .memory_mb = 256},
                    .kernel = img->kernel,
                    .initrd = img->initrd,
                    .cmdline = kernel_cmdline(arch, ""),
                    .console_log = console,
                    .results_file = records,
                    .prealloc = false};
  ProcessResult r = runner_.run({.argv = qemu_argv(launch),
                                 .log_path = log,
                                 .timeout = opt_.deadline,
                                 .kill_grace = std::chrono::seconds(2)});
  if (!r.spawn_error.empty())
    return make_error(fmt::format("cannot start {}: {}", key->qemu_path, r.spawn_error));
  const AccelVerdict v = boot_verdict(r, work, opt_.deadline);
  return save_verdict(verdict_file, v, key->text, work, format_argv(qemu_argv(launch)));
}

}  // namespace foliolab
