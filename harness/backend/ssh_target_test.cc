// The kexec backend's ssh target: URIs, the OpenSSH argv (key authentication only, host keys
// checked) and what its failures mean.
#include "backend/ssh_target.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

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

TEST(SshTarget, EveryMalformedAddressIsRefusedSayingWhy) {
  for (const auto& [uri, why] : std::vector<std::pair<std::string, std::string>>{
           {"ssh://lab1:99999", "the port must be from 1 to 65535"},
           {"ssh://lab1:65536", "the port must be from 1 to 65535"},
           {"ssh://lab1:", "the port must be from 1 to 65535"},
           {"ssh://lab1:22x", "the port must be from 1 to 65535"},
           {"ssh://-Fpwn.conf", "a host name beginning with '-' would be read by ssh as an option"},
           {"ssh://root@-oProxyCommand=x", "a host name is letters"},
           {"ssh://-oProxyCommand@lab1", "a user name beginning with '-'"},
           {"ssh://-l@lab1", "a user name beginning with '-'"},
           {"ssh://fd00::5", "an IPv6 address goes in brackets"},
           {"ssh://root@fd00::5:22", "an IPv6 address goes in brackets"},
           {"ssh://[fd00::5", "'[' has no ']'"},
           {"ssh://[fd00::5]x", "only ':PORT' may follow ']'"},
           {"ssh://[fe80::1%eth0]", "zone index"},
           {"ssh://[lab1]", "'lab1' in brackets is not an IPv6 address"},
           {"ssh://[]", "no host"},
           {"ssh://" + std::string(254, 'a'), "at most 253 characters"},
           {"ssh://" + std::string(33, 'u') + "@lab1", "at most 32 characters"}}) {
    auto bad = parse_ssh_uri(uri);
    ASSERT_FALSE(bad.ok()) << uri << " was taken as " << bad->name();
    EXPECT_NE(bad.error().message.find(why), std::string::npos) << bad.error().message;
  }
}

TEST(SshTarget, IPv6InBracketsAndOneNamePerMachine) {
  auto v6 = parse_ssh_uri("ssh://mm@[FD00:0::5]:2222/");
  ASSERT_TRUE(v6.ok()) << v6.error().message;
  EXPECT_EQ(v6->host, "fd00::5");
  EXPECT_TRUE(v6->ipv6);
  EXPECT_EQ(v6->name(), "mm@[fd00::5]:2222");
  EXPECT_EQ(scp_argv(*v6, {"/k"}, "/d").back(), "mm@[fd00::5]:/d/");
  const auto dashes = ssh_argv(*v6, {"true"});
  EXPECT_EQ(*(std::find(dashes.begin(), dashes.end(), "--") + 1), "fd00::5");
  for (const char* uri : {"ssh://lab1", "ssh://lab1:22", "ssh://lab1:22/", "ssh://root@lab1",
                          "ssh://root@LAB1:22/", "ssh://root@lab1/"}) {
    auto t = parse_ssh_uri(uri);
    ASSERT_TRUE(t.ok()) << uri << ": " << t.error().message;
    EXPECT_EQ(t->name(), "root@lab1:22") << uri;
  }
}

// The words getopt would read as options in `argv` (up to "--"; -o -i -p -l -P take the next
// word as their argument).
std::vector<std::string> option_words(const std::vector<std::string>& argv) {
  static const std::set<std::string> kTakesArgument = {"-o", "-i", "-p", "-l", "-P"};
  std::vector<std::string> words;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--") return words;
    words.push_back(argv[i]);
    if (kTakesArgument.contains(argv[i])) ++i;
  }
  ADD_FAILURE() << "no -- in the argv";
  return words;
}

TEST(SshTarget, NoFieldOfTheTargetIsEverReadAsAnOption) {
  const std::string evil = "-Fpwn.conf";
  std::vector<std::pair<std::string, SshTarget>> targets;
  targets.push_back({"user", {.user = evil, .host = "lab1"}});
  targets.push_back({"host", {.host = evil}});
  targets.push_back({"identity", {.host = "lab1", .identity = evil}});
  targets.push_back({"known_hosts", {.host = "lab1", .known_hosts = evil}});
  for (const auto& [field, t] : targets) {
    for (const auto& argv : {ssh_argv(t, {evil}), scp_argv(t, {"/k/" + evil}, evil)}) {
      for (const std::string& w : option_words(argv)) {
        EXPECT_TRUE(w == "-o" || w == "-i" || w == "-p" || w == "-l" || w == "-P" || w == "-q")
            << field << " " << evil << " stands as option '" << w << "' in " << argv[0];
      }
    }
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
  EXPECT_EQ(*(dashes + 1), "lab1");
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
