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
// Before its first run (open) it asks the machine over ssh what it is: an unknown host key, a
// refused key or a machine that does not answer keep it out of the pool with nothing copied.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/host_pool.h"
#include "backend/record_listener.h"
#include "backend/ssh_target.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KexecHostSpec {
  SshTarget ssh;
  std::vector<std::string> power_cycle;  // argv run on this machine; empty: none
  std::string cmdline;                   // more kernel parameters for this machine
  // Where foliolab listens for the records: "" for the address of this machine's interface
  // that routes to the machine (local_address_towards), so one interface, not all. Only a
  // connection greeting with the run's nonce is taken, and the port lives for one run.
  std::string listen;
  std::string report_address;  // how the machine reaches it; "": $SSH_CLIENT's address
  std::string remote_dir = "/tmp/foliolab";  // the machine's; /tmp goes with each reboot
  std::chrono::seconds boot_timeout{180};    // kexec -e to the agent's record connection
  std::chrono::seconds reboot_timeout{300};
  std::chrono::milliseconds poll_interval{2000};  // between ssh attempts while waiting
};

// The spec of a pool host (an ssh:// URI with the hosts file's keys).
Result<KexecHostSpec> kexec_host_spec(const PoolHost& host);

class KexecBackend : public Backend {
 public:
  KexecBackend(ProcessRunner& runner, KexecHostSpec spec)
      : runner_(runner), spec_(std::move(spec)) {}
  // A backend for a machine that answers over ssh (facts() once); else why not.
  static Result<std::unique_ptr<Backend>> open(ProcessRunner& runner, KexecHostSpec spec);
  std::string name() const override { return "kexec"; }
  // Refuses runs of an arch the machine is not (uname -m, read when it was opened).
  Result<void> preflight(const Experiment& exp, const std::vector<Run>& runs) override;
  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override;
  Result<BootOutcome> boot(const BootRequest& req) override;
  Result<void> reachable() override;

 private:
  struct Facts {
    std::string release, boot_id, client_address, uname_machine;
    LabMachineInfo machine;
  };
  Result<Facts> facts();
  Result<std::string> ssh(const std::vector<std::string>& remote_argv);
  // Waits for the machine's own kernel (a new boot id, `release`); the watchdog's power cycle
  // once if it does not come back. "" when back, else why not.
  std::string wait_until_back(const Facts& before, std::vector<std::string>& log);
  std::string power_cycle(std::vector<std::string>& log);
  // mkdir, scp of the kernel and the initrd (removed here after), kexec -l, a detached kexec -e.
  Result<void> load_and_jump(const std::filesystem::path& kernel,
                             const std::filesystem::path& initrd, const std::string& cmdline,
                             BootOutcome& out, std::vector<std::string>& log);
  // The watchdog's verdict on what the listener got: timed out (and power-cycled) or ended.
  void judge(const ReceivedRecords& got, std::chrono::seconds timeout, BootOutcome& out,
             std::vector<std::string>& log);

  ProcessRunner& runner_;
  KexecHostSpec spec_;
  std::string down_;           // why the machine is down, once it is
  std::string uname_machine_;  // uname -m when opened ("" before)
};

}  // namespace foliolab
