// KexecBackend: the run's own kernel on a lab machine (machine.backend: kexec). Over ssh
// (ssh_target.h) it copies the run's kernel and initrd (the base image and the job, plus one
// more archive holding the run's nonce), `kexec -l`s them with the run's command line plus
// `ip=dhcp foliolab.report=tcp:<this machine>:<port>`, and `kexec -e`s, detached from the
// session. The agent, PID 1 of the kexec'ed kernel, sends its records back over TCP
// (record_listener.h) and reboots the machine into its own kernel; foliolab waits for ssh to
// answer with a new boot id and the release the machine had before. The watchdog: no records by
// the run's timeout, or no ssh by the reboot timeout, runs the host's power_cycle argv, then waits
// again; a machine that still does not answer is down (reachable() says why).
//
// Work in progress (docs/kexec-progress.md): not in the backend table yet.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/ssh_target.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KexecHostSpec {
  SshTarget ssh;
  std::vector<std::string> power_cycle;  // argv run on this machine; empty: none
  std::string cmdline;                   // more kernel parameters for this machine
  std::string listen = "0.0.0.0";        // where foliolab listens for records
  std::string report_address;            // how the machine reaches it; "": $SSH_CLIENT's address
  std::string remote_dir = "/tmp/foliolab";  // the machine's; /tmp goes with each reboot
  std::chrono::seconds reboot_timeout{300};
  std::chrono::milliseconds poll_interval{2000};  // between ssh attempts while waiting
};

class KexecBackend : public Backend {
 public:
  KexecBackend(ProcessRunner& runner, KexecHostSpec spec)
      : runner_(runner), spec_(std::move(spec)) {}
  std::string name() const override { return "kexec"; }
  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override;
  Result<BootOutcome> boot(const BootRequest& req) override;
  Result<void> reachable() override;

 private:
  struct Facts {
    std::string release, boot_id, client_address;
  };
  Result<Facts> facts();
  Result<std::string> ssh(const std::vector<std::string>& remote_argv);
  // Waits for the machine's own kernel (a new boot id, `release`); the watchdog's power cycle
  // once if it does not come back. "" when back, else why not.
  std::string wait_until_back(const Facts& before, std::vector<std::string>& log);
  std::string power_cycle(std::vector<std::string>& log);

  ProcessRunner& runner_;
  KexecHostSpec spec_;
  std::string down_;  // why the machine is down, once it is
};

}  // namespace foliolab
