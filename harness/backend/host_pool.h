// A pool of hosts behind one Backend: `run --hosts URI[*slots],URI...` or a hosts file. The
// hosts are libvirt hosts (qemu:///system, qemu+ssh://...) or lab machines for the kexec backend
// (ssh://root@lab1: one run at a time each, with what the hosts file says of them, LabHost).
//
// Each boot goes to the live host with the most free slots (the first listed on a tie), so a
// matrix spreads by capacity; the executor runs as many guests at once as the pool has slots.
// A host whose connection is lost mid-boot (libvirtd killed or restarted, the network gone) is
// taken out of the pool for the rest of the session and the boot is retried on another host,
// inside the same boot() call: the run gets one record, which names the lost host
// (BootOutcome::lost_hosts). Only when every host is lost does boot() fail, which the executor
// treats as a host failure (no record, the matrix stops, --resume reruns the run).
//
// Pure apart from the member backends, which come from a factory: the unit tests pool fakes.
#pragma once

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "model/source_loc.h"
#include "util/result.h"

namespace foliolab {

// A lab machine's entry in a hosts file beyond its ssh:// URI (backend kexec).
struct LabHost {
  std::vector<std::string> power_cycle;  // argv run here when it does not come back; empty: none
  std::vector<std::string> config;       // kernel-config fragments its kernel needs (NIC, disk)
  std::vector<SourceLoc> config_locs;    // parallel to `config`
  std::string cmdline;                   // more kernel parameters (console=ttyS1,115200 ...)
  std::filesystem::path identity;        // ssh key; "": the ssh client's own
  std::filesystem::path known_hosts;     // "": the ssh client's own
  std::string listen;                    // where foliolab listens for the records; "": 0.0.0.0
  std::string report_address;  // how the machine reaches foliolab; "": $SSH_CLIENT's address
  int boot_timeout_s = 180;    // for the run's kernel to connect back after kexec -e
  int reboot_timeout_s = 300;  // for ssh to answer on the machine's own kernel again
};

struct PoolHost {
  std::string uri;
  int slots = 1;  // guests at once on this host (a lab machine: always 1)
  LabHost lab;    // ssh:// hosts only
  SourceLoc loc;  // where its URI was written (a hosts file's line:col); line 0: a flag
};

// Whether the URI names a lab machine (ssh://) rather than a libvirt host.
bool is_lab_uri(std::string_view uri);
// The backend a pool's hosts take: "kexec" when all are ssh://, "libvirt" when none is; a
// mixed list is an error.
Result<std::string> pool_backend_name(const std::vector<PoolHost>& hosts);

// "qemu:///system*2,qemu+ssh://root@lab2/system*4" (slots default to 1). Errors name the item.
Result<std::vector<PoolHost>> parse_hosts(std::string_view text);
// A YAML file `hosts: [{uri: URI, slots: N}, ...]`, a lab machine's item with LabHost's keys
// (power_cycle, config, cmdline, identity, known_hosts, listen, report_address, boot_timeout,
// reboot_timeout); relative paths are the file's (made absolute). Errors name file, line and key.
// Checked here, so at plan: every ssh:// URI (parse_ssh_uri), identity and known_hosts files
// present and readable, listen and report_address IPv4 addresses (and given, for a machine at
// an IPv6 address), one kind of host, and each machine once however its URI is spelled.
Result<std::vector<PoolHost>> parse_hosts_file(const std::string& yaml_text,
                                               const std::string& file_name);
// --hosts: a file when the value names an existing file, else the comma list.
Result<std::vector<PoolHost>> load_hosts(const std::string& value);

// What the pool did per host, for the session's closing lines.
struct PoolHostUse {
  std::string uri;
  int slots = 0;
  int runs = 0;  // boots that ended on this host (whatever the guest did)
  bool lost = false;
  std::string lost_why;
};

class PoolBackend : public Backend {
 public:
  using Factory = std::function<Result<std::unique_ptr<Backend>>(const PoolHost&)>;

  // Connects every host; one that cannot be reached is left out with a warning (in
  // `warnings`); no reachable host at all is an error naming each.
  static Result<std::unique_ptr<PoolBackend>> open(const std::vector<PoolHost>& hosts,
                                                   const Factory& factory,
                                                   std::vector<std::string>& warnings);

  std::string name() const override;
  Result<void> preflight(const Experiment& exp, const std::vector<Run>& runs) override;
  // The same accelerator for every host: kvm only when each live host grants it (a matrix
  // must not mix KVM and TCG timings); otherwise tcg, or an error for an explicit `kvm`.
  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override;
  Result<BootOutcome> boot(const BootRequest& req) override;
  Result<void> reachable() override;

  int slots() const;  // of the live hosts
  std::vector<PoolHostUse> usage() const;

 private:
  struct Member {
    PoolHost host;
    std::unique_ptr<Backend> backend;
    int busy = 0;
    int runs = 0;
    bool lost = false;
    std::string lost_why;
  };
  explicit PoolBackend(std::vector<Member> members) : members_(std::move(members)) {}
  // The live member with the most free slots, waiting for one; nullptr when none is live.
  Member* acquire();
  void release(Member* m, bool ran);

  std::vector<Member> members_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace foliolab
