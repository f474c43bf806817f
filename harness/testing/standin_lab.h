// Test helper: the stand-in lab machine of the kexec backend's e2e tests. A QEMU guest (TCG,
// 1 CPU, 1 GiB; x86_64 q35, or arm64 virt with its virtio devices over MMIO and without the
// DTB's random nodes: kexec-tools refuses a DTB whose kaslr-seed the kernel did not wipe, and a
// kernel without KASLR never wipes it) booting a Debian root filesystem built by
// images/debian-kexec-lab.yaml (openssh-server, kexec-tools) on a kernel with CONFIG_KEXEC, its
// /sbin/kexec-lab-init as PID 1; user-mode networking with its sshd forwarded to a free loopback
// port here and the host (this machine, where foliolab listens for records) at 10.0.2.2; its QEMU
// monitor on another free port, which the hosts file's power_cycle reaches (qemu-monitor.py
// system_reset). root's key is made for the test (ssh-keygen) and handed over on the kernel command
// line; known_hosts comes from ssh-keyscan once sshd answers.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/arch.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

class StandinLab {
 public:
  // Boots it in `dir` (key, known_hosts, console and QEMU logs there); ready once ssh answers.
  static Result<std::unique_ptr<StandinLab>> start(const std::filesystem::path& dir, Arch arch,
                                                   const std::filesystem::path& kernel,
                                                   const std::filesystem::path& disk);
  ~StandinLab();
  StandinLab(const StandinLab&) = delete;
  StandinLab& operator=(const StandinLab&) = delete;

  std::string uri() const;  // ssh://root@127.0.0.1:PORT
  int monitor_port() const { return monitor_port_; }
  std::filesystem::path key() const { return dir_ / "lab-key"; }
  std::filesystem::path known_hosts() const { return dir_ / "known_hosts"; }
  std::filesystem::path console() const { return dir_ / "standin-console.log"; }
  // A command on the machine over ssh (argv quoted for its shell), as the kexec backend runs it.
  ProcessResult ssh(const std::vector<std::string>& remote_argv) const;
  // /proc/sys/kernel/random/boot_id and uname -r, or "" when it does not answer.
  std::string boot_id() const;
  std::string release() const;

 private:
  StandinLab(std::filesystem::path dir, int ssh_port, int monitor_port)
      : dir_(std::move(dir)), ssh_port_(ssh_port), monitor_port_(monitor_port) {}
  Result<void> wait_for_sshd();
  std::string answer(const std::string& command) const;

  std::filesystem::path dir_;
  int ssh_port_, monitor_port_;
  pid_t qemu_ = -1;
};

}  // namespace foliolab
