#include "backend/ssh_target.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "util/text.h"

namespace foliolab {

namespace {

constexpr size_t kMaxHost = 253;  // a DNS name's length
constexpr size_t kMaxUser = 32;   // useradd's

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

// A user or a host name: [A-Za-z0-9._-], not beginning with '-' (ssh would read it as an
// option); what is wrong, or "".
std::string name_problem(std::string_view name, std::string_view what, size_t max) {
  if (name.size() > max) return fmt::format("a {} name is at most {} characters", what, max);
  if (!std::all_of(name.begin(), name.end(), is_name_char)) {
    return fmt::format("a {} name is letters, digits, '.', '-' and '_'", what);
  }
  if (name.front() == '-') {
    return fmt::format("a {} name beginning with '-' would be read by ssh as an option", what);
  }
  return "";
}

// "[v6]" -> the address in its canonical text ("fe80::1"), or what is wrong in `why`.
std::optional<std::string> ipv6_literal(std::string_view bracketed, std::string* why) {
  const std::string inner(bracketed.substr(1, bracketed.size() - 2));
  if (inner.find('%') != std::string::npos) {
    *why = "an IPv6 zone index (%...) is not supported: give a global or unique-local address";
    return std::nullopt;
  }
  in6_addr addr{};
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_pton(AF_INET6, inner.c_str(), &addr) != 1 ||
      !::inet_ntop(AF_INET6, &addr, text, sizeof text)) {
    *why = "'" + inner + "' in brackets is not an IPv6 address";
    return std::nullopt;
  }
  return std::string(text);
}

// host[:port] or [v6][:port] into t; what is wrong, or "".
std::string parse_host_port(std::string_view rest, SshTarget& t) {
  std::string_view host = rest;
  std::optional<std::string_view> port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return "an IPv6 address's '[' has no ']'";
    host = rest.substr(0, close + 1);
    const std::string_view after = rest.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return "only ':PORT' may follow ']'";
    if (!after.empty()) port = after.substr(1);
  } else if (const size_t colon = rest.find(':'); colon != std::string_view::npos) {
    if (rest.find(':', colon + 1) != std::string_view::npos) {
      return "an IPv6 address goes in brackets (ssh://root@[fd00::5]:22)";
    }
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty() || host == "[]") return "no host";
  if (port) {
    const auto n = parse_uint(*port);
    if (!n || *n < 1 || *n > 65535) return "the port must be from 1 to 65535";
    t.port = static_cast<int>(*n);
  }
  if (host.starts_with('[')) {
    std::string why;
    auto v6 = ipv6_literal(host, &why);
    if (!v6) return why;
    t.host = *v6;
    t.ipv6 = true;
    return "";
  }
  if (std::string why = name_problem(host, "host", kMaxHost); !why.empty()) return why;
  t.host = std::string(host);
  std::transform(t.host.begin(), t.host.end(), t.host.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return "";
}

}  // namespace

std::string SshTarget::address() const { return ipv6 ? "[" + host + "]" : host; }

std::string SshTarget::name() const { return fmt::format("{}@{}:{}", user, address(), port); }

Result<SshTarget> parse_ssh_uri(std::string_view uri) {
  const auto bad = [&](std::string_view why) {
    return make_error(
        fmt::format("'{}' is not an ssh URI ({}; e.g. ssh://root@lab1, ssh://root@10.0.0.5:2222 or "
                    "ssh://root@[fd00::5]:22)",
                    uri, why));
  };
  constexpr std::string_view kScheme = "ssh://";
  if (!uri.starts_with(kScheme)) return bad("it must start with ssh://");
  std::string_view rest = uri.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  SshTarget t;
  if (const size_t at = rest.find('@'); at != std::string_view::npos) {
    t.user = std::string(rest.substr(0, at));
    rest = rest.substr(at + 1);
    if (t.user.empty()) return bad("an empty user before '@'");
    if (std::string why = name_problem(t.user, "user", kMaxUser); !why.empty()) return bad(why);
  }
  if (std::string why = parse_host_port(rest, t); !why.empty()) return bad(why);
  return t;
}

std::string ssh_file_problem(const std::filesystem::path& file) {
  const std::string text = file.string();
  if (text.find_first_of(" \t\n\"'%\\") != std::string::npos) {
    return "a path ssh takes whole has no blank, quote, '%' or '\\' (ssh would split or expand "
           "it)";
  }
  std::error_code ec;
  const auto st = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(st)) return "does not exist";
  if (!std::filesystem::is_regular_file(st)) return "is not a regular file";
  if (::access(file.c_str(), R_OK) != 0) return "cannot be read: " + std::string(strerror(errno));
  return "";
}

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

namespace {

std::vector<std::string> common_options(const SshTarget& t) {
  std::vector<std::string> a = {"-o", "BatchMode=yes",
                                "-o", "StrictHostKeyChecking=yes",
                                "-o", "PasswordAuthentication=no",
                                "-o", "KbdInteractiveAuthentication=no",
                                "-o", fmt::format("ConnectTimeout={}", t.connect_timeout_s),
                                "-o", "ServerAliveInterval=2",
                                "-o", "ServerAliveCountMax=3"};
  if (!t.known_hosts.empty()) {
    a.insert(a.end(), {"-o", "UserKnownHostsFile=" + t.known_hosts.string()});
  }
  if (!t.identity.empty()) a.insert(a.end(), {"-o", "IdentitiesOnly=yes", "-i", t.identity});
  return a;
}

}  // namespace

std::vector<std::string> ssh_argv(const SshTarget& t, const std::vector<std::string>& remote_argv) {
  std::vector<std::string> a = {"ssh"};
  const auto opts = common_options(t);
  a.insert(a.end(), opts.begin(), opts.end());
  // Nothing of the target stands where ssh reads options: the user is -l's argument and the
  // host comes after "--" (OpenSSH parses no option after "--" and the destination).
  a.insert(a.end(), {"-p", std::to_string(t.port), "-l", t.user, "--", t.host});
  std::vector<std::string> quoted;
  for (const std::string& w : remote_argv) quoted.push_back(shell_quote(w));
  a.push_back(join(quoted, " "));
  return a;
}

std::vector<std::string> scp_argv(const SshTarget& t,
                                  const std::vector<std::filesystem::path>& files,
                                  const std::string& remote_dir) {
  std::vector<std::string> a = {"scp", "-q"};
  const auto opts = common_options(t);
  a.insert(a.end(), opts.begin(), opts.end());
  a.insert(a.end(), {"-P", std::to_string(t.port), "--"});
  for (const auto& f : files) a.push_back(f.string());
  a.push_back(fmt::format("{}@{}:{}/", t.user, t.address(), remote_dir));
  return a;
}

std::string describe_ssh_failure(const SshTarget& t, const std::string& out) {
  if (out.find("Host key verification failed") != std::string::npos) {
    const std::string file = t.known_hosts.empty() ? "~/.ssh/known_hosts" : t.known_hosts.string();
    return fmt::format(
        "{}: its host key is not in {} (or has changed): nothing was copied. Check the key's "
        "fingerprint on the machine, then add it (ssh-keyscan -p {} {} >> {})",
        t.name(), file, t.port, t.host, file);
  }
  if (out.find("Permission denied") != std::string::npos) {
    return fmt::format("{}: key authentication was refused (foliolab never uses a password){}",
                       t.name(), t.identity.empty() ? "" : "; key " + t.identity.string());
  }
  if (out.find("Connection refused") != std::string::npos ||
      out.find("timed out") != std::string::npos ||
      out.find("No route to host") != std::string::npos) {
    return fmt::format("{}: does not answer on ssh", t.name());
  }
  const auto lines = split_lines(out);
  return fmt::format("{}: ssh failed: {}", t.name(),
                     lines.empty() ? "(no output)" : std::string(trim(lines.back())));
}

}  // namespace foliolab
