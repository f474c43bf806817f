// A lab machine reached over ssh (the kexec backend): `ssh://[user@]host[:port]` and the OpenSSH
// client's argv for it. Always key authentication with the host's key checked against
// known_hosts: BatchMode (never a password prompt), StrictHostKeyChecking=yes (an unknown or
// changed host key stops the run before anything is copied), no password or keyboard-interactive
// authentication, a connect timeout, and keep-alives so that a machine that kexec'ed or died
// under an open session ends it within seconds. ssh hands the remote side one command string:
// each argument is single-quoted for the remote shell (shell_quote).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct SshTarget {
  std::string user = "root";
  std::string host;
  int port = 22;
  std::filesystem::path identity;     // -i KEY; empty: the client's own (~/.ssh, the agent)
  std::filesystem::path known_hosts;  // UserKnownHostsFile; empty: the client's own
  int connect_timeout_s = 10;

  std::string name() const;  // "root@lab1:22"
};

// ssh://[user@]host[:port]; errors say what was expected.
Result<SshTarget> parse_ssh_uri(std::string_view uri);

// 'it'\''s' for a POSIX shell.
std::string shell_quote(std::string_view word);

// ssh ... -- <remote_argv quoted into one command string>
std::vector<std::string> ssh_argv(const SshTarget& t, const std::vector<std::string>& remote_argv);
// scp ... FILES... user@host:DIR/
std::vector<std::string> scp_argv(const SshTarget& t,
                                  const std::vector<std::filesystem::path>& files,
                                  const std::string& remote_dir);

// What ssh's failure means, in foliolab's words: an unknown host key, a refused key, a machine
// that does not answer; else ssh's own last line.
std::string describe_ssh_failure(const SshTarget& t, const std::string& ssh_output);

}  // namespace foliolab
