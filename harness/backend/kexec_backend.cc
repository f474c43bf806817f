#include "backend/kexec_backend.h"

#include <fmt/format.h>

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

Result<AccelVerdict> KexecBackend::resolve_accel(const AccelRequest&) {
  return AccelVerdict{Accel::kNone, fmt::format("bare metal: {} by kexec", spec_.ssh.name())};
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

Result<KexecBackend::Facts> KexecBackend::facts() {
  auto out = ssh(
      {"sh", "-c", "uname -r; cat /proc/sys/kernel/random/boot_id; echo \"${SSH_CLIENT%% *}\""});
  FL_TRY(out);
  const auto lines = split_lines(*out);
  if (lines.size() < 3) {
    return make_error(
        fmt::format("{}: unexpected answer to uname/boot_id: {}", spec_.ssh.name(), trim(*out)));
  }
  return Facts{.release = std::string(trim(lines[lines.size() - 3])),
               .boot_id = std::string(trim(lines[lines.size() - 2])),
               .client_address = std::string(trim(lines[lines.size() - 1]))};
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
  auto listener = RecordListener::open(spec_.listen, 0);
  if (!listener.ok()) return listener.error();
  const std::string address =
      spec_.report_address.empty() ? before->client_address : spec_.report_address;
  const std::string dir = spec_.remote_dir;
  const std::string kernel = dir + "/" + req.kernel.filename().string();
  const std::string remote_initrd = dir + "/" + initrd.filename().string();
  std::string cmdline =
      fmt::format("{} ip=dhcp foliolab.report=tcp:{}:{}", req.cmdline, address, listener->port());
  if (!spec_.cmdline.empty()) cmdline += " " + spec_.cmdline;
  FL_TRY(ssh({"mkdir", "-p", dir}));
  ProcessResult copied = runner_.run({.argv = scp_argv(spec_.ssh, {req.kernel, initrd}, dir),
                                      .capture = true,
                                      .timeout = std::chrono::milliseconds(kSshTimeout)});
  if (!copied.ok()) return make_error(describe_ssh_failure(spec_.ssh, copied.output));
  FL_TRY(ssh({"kexec", "-l", kernel, "--initrd=" + remote_initrd, "--append=" + cmdline}));
  out.command = join(ssh_argv(spec_.ssh, {"kexec", "-l", kernel, "--initrd=" + remote_initrd,
                                          "--append=" + cmdline}),
                     " ");
  log.push_back("kexec -l " + kernel + " --append=" + cmdline);
  // Detached: the session must end before the machine jumps, or ssh waits for a dead peer.
  FL_TRY(ssh({"sh", "-c", "nohup sh -c 'sleep 1; kexec -e' >/dev/null 2>&1 </dev/null &"}));
  log.push_back("kexec -e");
  auto got = listener->receive(*nonce, out.records_file, start + req.timeout);
  if (!got.ok()) return got.error();
  for (const std::string& r : got->refused) log.push_back("refused a record connection: " + r);
  if (!got->connected || !got->closed) {
    out.timed_out = true;
    out.exit = got->connected ? fmt::format("the record stream from {} did not end within {}s",
                                            got->peer, req.timeout.count())
                              : fmt::format("no record connection within {}s", req.timeout.count());
    log.push_back("watchdog: " + out.exit);
    if (const std::string why = power_cycle(log); !why.empty()) out.exit += "; " + why;
  } else {
    log.push_back(fmt::format("{} bytes of records from {}", got->bytes, got->peer));
    out.exit = "the agent closed its record stream";
  }
  if (const std::string why = wait_until_back(*before, log); !why.empty()) {
    down_ = why;
    out.abnormal_exit = true;
    out.exit += "; " + why;
  }
  append_console(out.console_log, log);
  out.hypervisor_host = spec_.ssh.name();
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace foliolab
