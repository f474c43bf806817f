// The kexec backend's ssh target: URIs, the OpenSSH argv (key authentication only, host keys
// checked) and what its failures mean.
#include "backend/ssh_target.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace foliolab {
namespace {

bool has_option(const std::vector<std::string>& argv, const std::string& opt) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o" && argv[i + 1] == opt) return true;
  }
  return false;
}

TEST(SshTarget, UrisNameUserHostAndPortAndBadOnesSayWhy) {
  auto t = parse_ssh_uri("ssh://lab1");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->name(), "root@lab1:22");
  auto u = parse_ssh_uri("ssh://mm@10.0.0.5:2222/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->name(), "mm@10.0.0.5:2222");
  for (const auto& [uri, why] : std::vector<std::pair<std::string, std::string>>{
           {"lab1", "it must start with ssh://"},
           {"ssh://root@", "no host"},
           {"ssh://@lab1", "an empty user"},
           {"ssh://lab1:0", "the port must be from 1 to 65535"},
           {"ssh://lab1;reboot", "a host name is letters"},
           {"ssh://a$(x)@lab1", "a user name is letters"}}) {
    auto bad = parse_ssh_uri(uri);
    ASSERT_FALSE(bad.ok()) << uri;
    EXPECT_NE(bad.error().message.find(why), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("'" + uri + "'"), std::string::npos);
  }
}

TEST(SshTarget, ArgvChecksTheHostKeyNeverPromptsAndQuotesTheRemoteCommand) {
  SshTarget t{.host = "lab1", .port = 2222, .identity = "/k/id", .known_hosts = "/k/known"};
  const auto a = ssh_argv(t, {"kexec", "-l", "/tmp/k", "--append=console=ttyS0 it's"});
  EXPECT_EQ(a.front(), "ssh");
  for (const char* opt : {"BatchMode=yes", "StrictHostKeyChecking=yes", "PasswordAuthentication=no",
                          "KbdInteractiveAuthentication=no", "UserKnownHostsFile=/k/known",
                          "IdentitiesOnly=yes", "ServerAliveInterval=2"}) {
    EXPECT_TRUE(has_option(a, opt)) << opt;
  }
  EXPECT_NE(std::find(a.begin(), a.end(), "/k/id"), a.end());
  const auto dashes = std::find(a.begin(), a.end(), "--");
  ASSERT_NE(dashes, a.end());
  EXPECT_EQ(*(dashes - 1), "lab1");
  EXPECT_EQ(a.back(), "'kexec' '-l' '/tmp/k' '--append=console=ttyS0 it'\\''s'");
  const auto s = scp_argv(t, {"/c/bzImage", "/r/initrd.cpio"}, "/var/lib/foliolab");
  EXPECT_EQ(s[0], "scp");
  EXPECT_TRUE(has_option(s, "StrictHostKeyChecking=yes"));
  EXPECT_EQ(s.back(), "root@lab1:/var/lib/foliolab/");
  EXPECT_EQ(*(s.end() - 3), "/c/bzImage");
}

TEST(SshTarget, FailuresAreSaidInFoliolabsWords) {
  SshTarget t{.host = "lab1", .known_hosts = "/k/known"};
  EXPECT_NE(describe_ssh_failure(t, "@@@@\nHost key verification failed.\n")
                .find("its host key is not in /k/known (or has changed): nothing was copied"),
            std::string::npos);
  EXPECT_NE(describe_ssh_failure(t, "root@lab1: Permission denied (publickey).")
                .find("key authentication was refused"),
            std::string::npos);
  EXPECT_NE(describe_ssh_failure(t, "ssh: connect to host lab1 port 22: Connection refused")
                .find("does not answer on ssh"),
            std::string::npos);
  EXPECT_EQ(describe_ssh_failure(t, "x\nsomething else\n"),
            "root@lab1:22: ssh failed: something else");
}

}  // namespace
}  // namespace foliolab
