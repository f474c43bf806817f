#include "backend/ssh_target.h"

#include <fmt/format.h>

#include "util/text.h"

namespace foliolab {

std::string SshTarget::name() const { return fmt::format("{}@{}:{}", user, host, port); }

Result<SshTarget> parse_ssh_uri(std::string_view uri) {
  const auto bad = [&](std::string_view why) {
    return make_error(fmt::format(
        "'{}' is not an ssh URI ({}; e.g. ssh://root@lab1 or ssh://root@10.0.0.5:2222)", uri, why));
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
  }
  if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    const auto port = parse_uint(rest.substr(colon + 1));
    if (!port || *port < 1 || *port > 65535) return bad("the port must be from 1 to 65535");
    t.port = static_cast<int>(*port);
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return bad("no host");
  for (char c : rest) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) {
      return bad("a host name is letters, digits, '.', '-' and '_'");
    }
  }
  for (char c : t.user) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) {
      return bad("a user name is letters, digits, '.', '-' and '_'");
    }
  }
  t.host = std::string(rest);
  return t;
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
  a.insert(a.end(), {"-p", std::to_string(t.port), "-l", t.user, t.host, "--"});
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
  a.push_back(fmt::format("{}@{}:{}/", t.user, t.host, remote_dir));
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
