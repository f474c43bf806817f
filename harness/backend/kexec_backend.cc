#include "backend/kexec_backend.h"

#include <fmt/format.h>

#include <map>
#include <thread>

#include "backend/record_listener.h"
#include "image/cpio.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::chrono::seconds kSshTimeout{120};  // one ssh or scp command

// The run's initrd plus an archive holding job/nonce (Linux unpacks concatenated archives).
Result<void> write_nonce_initrd(const fs::path& initrd, const std::string& nonce,
                                const fs::path& out) {
  auto base = read_file(initrd);
  FL_TRY(base);
  auto extra = write_cpio({{.path = "job", .kind = CpioEntry::Kind::kDir, .mode = 0755},
                           {.path = "job/nonce", .mode = 0600, .data = nonce + "\n"}});
  FL_TRY(extra);
  return write_file_atomic(out, *base + *extra);
}

void append_console(const fs::path& console, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += "foliolab: " + l + "\n";
  (void)write_file_atomic(console, text);
}

}  // namespace

Result<KexecHostSpec> kexec_host_spec(const PoolHost& host) {
  auto ssh = parse_ssh_uri(host.uri);
  FL_TRY(ssh);
  KexecHostSpec spec{.ssh = *ssh};
  const LabHost& lab = host.lab;
  spec.ssh.identity = lab.identity;
  spec.ssh.known_hosts = lab.known_hosts;
  spec.power_cycle = lab.power_cycle;
  spec.cmdline = lab.cmdline;
  spec.listen = lab.listen;
  spec.report_address = lab.report_address;
  spec.boot_timeout = std::chrono::seconds(lab.boot_timeout_s);
  spec.reboot_timeout = std::chrono::seconds(lab.reboot_timeout_s);
  return spec;
}

Result<std::unique_ptr<Backend>> KexecBackend::open(ProcessRunner& runner, KexecHostSpec spec) {
  auto backend = std::make_unique<KexecBackend>(runner, std::move(spec));
  auto facts = backend->facts();
  if (!facts.ok()) return facts.error();
  backend->uname_machine_ = facts->uname_machine;
  return std::unique_ptr<Backend>(std::move(backend));
}

Result<void> KexecBackend::preflight(const Experiment&, const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    const ArchInfo& a = arch_info(run.arch);
    if (!uname_machine_.empty() && uname_machine_ != a.uname_machine) {
      return make_error(fmt::format(
          "{} is {} (uname -m): it cannot kexec the {} kernel of run {}; list machines of the "
          "experiment's arch in the pool, or --arch {}",
          spec_.ssh.name(), uname_machine_, a.name, run.id,
          uname_machine_ == "aarch64" ? "arm64" : uname_machine_));
    }
  }
  return {};
}

Result<AccelVerdict> KexecBackend::resolve_accel(const AccelRequest&) {
  return AccelVerdict{Accel::kNone, "bare metal, the run's kernel by kexec"};
}

Result<void> KexecBackend::reachable() {
  if (!down_.empty()) return make_error(down_);
  return {};
}

Result<std::string> KexecBackend::ssh(const std::vector<std::string>& remote_argv) {
  ProcessResult r =
      runner_.run({.argv = ssh_argv(spec_.ssh, remote_argv),
                   .capture = true,
                   .timeout = std::chrono::duration_cast<std::chrono::milliseconds>(kSshTimeout)});
  if (!r.ok()) return make_error(describe_ssh_failure(spec_.ssh, r.output));
  return r.output;
}

// What the machine says of itself, one `key=value` line each (read with care: the machine's
// words). sh, sed, grep and getconf are in every Debian, minbase included.
constexpr const char* kFactsScript =
    "echo release=$(uname -r); echo boot_id=$(cat /proc/sys/kernel/random/boot_id); "
    "echo client=${SSH_CLIENT%% *}; "
    "echo cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//'); "
    "echo arch=$(uname -m); echo cpus=$(getconf _NPROCESSORS_ONLN); "
    "echo mem_kb=$(sed -n 's/^MemTotal: *\\([0-9]*\\).*/\\1/p' /proc/meminfo); "
    "echo nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)";

Result<KexecBackend::Facts> KexecBackend::facts() {
  auto out = ssh({"sh", "-c", kFactsScript});
  FL_TRY(out);
  std::map<std::string, std::string> kv;
  for (const auto& line : split_lines(*out)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos)
      kv[std::string(trim(line.substr(0, eq)))] = trim(line.substr(eq + 1));
  }
  if (kv["release"].empty() || kv["boot_id"].empty()) {
    return make_error(
        fmt::format("{}: unexpected answer to uname/boot_id: {}", spec_.ssh.name(), trim(*out)));
  }
  auto number = [&kv](const char* key) {
    return static_cast<int64_t>(parse_uint(kv[key]).value_or(0));
  };
  Facts f{.release = kv["release"],
          .boot_id = kv["boot_id"],
          .client_address = kv["client"],
          .uname_machine = kv["arch"]};
  f.machine = {.name = spec_.ssh.name(),
               .own_release = f.release,
               .cpu_model = kv["cpu"].empty() ? kv["arch"] : kv["cpu"],
               .cpus = number("cpus"),
               .mem_total_kb = number("mem_kb"),
               .numa_nodes = number("nodes")};
  return f;
}

std::string KexecBackend::power_cycle(std::vector<std::string>& log) {
  if (spec_.power_cycle.empty()) return "no power_cycle command for this machine";
  ProcessResult r = runner_.run({.argv = spec_.power_cycle,
                                 .capture = true,
                                 .timeout = std::chrono::milliseconds(kSshTimeout)});
  log.push_back(fmt::format("power cycle: `{}`: {}", join(spec_.power_cycle, " "),
                            r.ok() ? "ok" : r.describe()));
  return r.ok() ? "" : "power_cycle failed: " + r.describe();
}

std::string KexecBackend::wait_until_back(const Facts& before, std::vector<std::string>& log) {
  for (int cycle = 0; cycle < 2; ++cycle) {
    const auto deadline = Clock::now() + spec_.reboot_timeout;
    std::string last;
    while (Clock::now() < deadline) {
      auto now = facts();
      if (now.ok() && now->boot_id != before.boot_id && now->release == before.release) {
        log.push_back(
            fmt::format("back on its own kernel {} (boot id {})", now->release, now->boot_id));
        return "";
      }
      last = now.ok() ? fmt::format("running {} (boot id {})", now->release, now->boot_id)
                      : now.error().message;
      std::this_thread::sleep_for(spec_.poll_interval);
    }
    log.push_back(fmt::format("not back on its own kernel within {}s: {}",
                              spec_.reboot_timeout.count(), last));
    if (cycle == 0) {
      if (const std::string why = power_cycle(log); !why.empty()) {
        return fmt::format("{} is down: not back within {}s, and {}", spec_.ssh.name(),
                           spec_.reboot_timeout.count(), why);
      }
    }
  }
  return fmt::format("{} is down: not back within {}s after a power cycle", spec_.ssh.name(),
                     spec_.reboot_timeout.count());
}

Result<void> KexecBackend::load_and_jump(const fs::path& kernel_file, const fs::path& initrd,
                                         const std::string& cmdline, BootOutcome& out,
                                         std::vector<std::string>& log) {
  const std::string dir = spec_.remote_dir;
  const std::string kernel = dir + "/" + kernel_file.filename().string();
  const std::string remote_initrd = dir + "/" + initrd.filename().string();
  FL_TRY(ssh({"mkdir", "-p", dir}));
  ProcessResult copied = runner_.run({.argv = scp_argv(spec_.ssh, {kernel_file, initrd}, dir),
                                      .capture = true,
                                      .timeout = std::chrono::milliseconds(kSshTimeout)});
  std::error_code ec;
  fs::remove(initrd, ec);  // the run's initrd and its nonce: the run folder keeps job.txt
  if (!copied.ok()) return make_error(describe_ssh_failure(spec_.ssh, copied.output));
  const std::vector<std::string> load = {"kexec", "-l", kernel, "--initrd=" + remote_initrd,
                                         "--append=" + cmdline};
  FL_TRY(ssh(load));
  out.command = join(ssh_argv(spec_.ssh, load), " ");
  log.push_back("kexec -l " + kernel + " --append=" + cmdline);
  // Detached: the session must end before the machine jumps, or ssh waits for a dead peer.
  FL_TRY(ssh({"sh", "-c", "nohup sh -c 'sleep 1; kexec -e' >/dev/null 2>&1 </dev/null &"}));
  log.push_back("kexec -e");
  return {};
}

void KexecBackend::judge(const ReceivedRecords& got, std::chrono::seconds timeout, BootOutcome& out,
                         std::vector<std::string>& log) {
  for (const std::string& r : got.refused) log.push_back("refused a record connection: " + r);
  if (got.connected && got.closed) {
    log.push_back(fmt::format("{} bytes of records from {}", got.bytes, got.peer));
    out.exit = "the agent closed its record stream";
    return;
  }
  out.timed_out = true;
  out.exit = got.over_limit  ? fmt::format("the record stream from {} passed {} bytes and was cut",
                                           got.peer, got.bytes)
             : got.connected ? fmt::format("the record stream from {} did not end within {}s",
                                           got.peer, timeout.count())
                             : fmt::format(
                                   "no record connection within {}s of kexec -e (the "
                                   "run's kernel did not boot to its agent)",
                                   std::min(spec_.boot_timeout, timeout).count());
  log.push_back("watchdog: " + out.exit);
  if (const std::string why = power_cycle(log); !why.empty()) out.exit += "; " + why;
}

Result<BootOutcome> KexecBackend::boot(const BootRequest& req) {
  if (!down_.empty()) return make_error(down_);
  BootOutcome out{.accel = Accel::kNone, .backend = "kexec"};
  prepare_boot_files(req, out);
  const auto start = Clock::now();
  std::vector<std::string> log;
  auto before = facts();
  if (!before.ok()) return before.error();  // nothing copied: a host failure, not the run's
  log.push_back(
      fmt::format("{} runs {} (boot id {})", spec_.ssh.name(), before->release, before->boot_id));
  auto nonce = make_run_nonce();
  if (!nonce.ok()) return nonce.error();
  const fs::path initrd = req.run_dir / "kexec-initrd.cpio";
  FL_TRY(write_nonce_initrd(req.initrd, *nonce, initrd));
  auto listen = spec_.listen.empty() ? local_address_towards(spec_.ssh.host)
                                     : Result<std::string>(spec_.listen);
  if (!listen.ok()) return listen.error();
  auto listener = RecordListener::open(*listen, 0);
  if (!listener.ok()) return listener.error();
  const std::string address =
      spec_.report_address.empty() ? before->client_address : spec_.report_address;
  std::string cmdline =
      fmt::format("{} ip=dhcp foliolab.report=tcp:{}:{}", req.cmdline, address, listener->port());
  if (!spec_.cmdline.empty()) cmdline += " " + spec_.cmdline;
  FL_TRY(load_and_jump(req.kernel, initrd, cmdline, out, log));
  auto got = listener->receive(*nonce, out.records_file, Clock::now() + spec_.boot_timeout,
                               start + req.timeout);
  if (!got.ok()) return got.error();
  judge(*got, req.timeout, out, log);
  if (const std::string why = wait_until_back(*before, log); !why.empty()) {
    down_ = why;
    out.abnormal_exit = true;
    out.exit += "; " + why;
  }
  append_console(out.console_log, log);
  out.lab_machine = before->machine;
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace foliolab
