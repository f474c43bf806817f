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
  std::string host;   // lower case; an IPv6 address without brackets, in its canonical text
  bool ipv6 = false;  // `host` is an IPv6 address (brackets in URIs, names and scp's target)
  int port = 22;
  std::filesystem::path identity;     // -i KEY; empty: the client's own (~/.ssh, the agent)
  std::filesystem::path known_hosts;  // UserKnownHostsFile; empty: the client's own
  int connect_timeout_s = 10;

  std::string address() const;  // host, in brackets when IPv6
  // "root@lab1:22": one spelling per machine (user and port filled in, host in lower case), so
  // ssh://lab1, ssh://lab1:22/ and ssh://root@LAB1 are one name.
  std::string name() const;
};

// ssh://[user@]host[:port][/] with host a name or an IPv6 address in brackets ([fd00::5]).
// Refused, saying why: a user or host beginning with '-' (ssh would take it as an option),
// characters beyond [A-Za-z0-9._-], a port outside 1..65535, an IPv6 address without brackets
// or with a zone index.
Result<SshTarget> parse_ssh_uri(std::string_view uri);
// What keeps ssh from reading `file` as an identity or known_hosts file (absent, not a
// regular file, unreadable, or a name ssh would split or expand), or "".
std::string ssh_file_problem(const std::filesystem::path& file);

// 'it'\''s' for a POSIX shell.
std::string shell_quote(std::string_view word);

// ssh OPTIONS -p PORT -l USER -- HOST <remote_argv quoted into one command string>: every
// value of the target is an option's argument or follows "--".
std::vector<std::string> ssh_argv(const SshTarget& t, const std::vector<std::string>& remote_argv);
// scp ... FILES... user@host:DIR/
std::vector<std::string> scp_argv(const SshTarget& t,
                                  const std::vector<std::filesystem::path>& files,
                                  const std::string& remote_dir);

// What ssh's failure means, in foliolab's words: an unknown host key, a refused key, a machine
// that does not answer; else ssh's own last line.
std::string describe_ssh_failure(const SshTarget& t, const std::string& ssh_output);

}  // namespace foliolab
