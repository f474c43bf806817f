#include "backend/host_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <thread>

#include "testing/fake_backend.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A host whose boots succeed, block until opened, or fail with the host going away.
struct FakeHost {
  std::string uri;
  Accel accel = Accel::kTcg;
  bool lose_on_boot = false;  // the next boot fails and the host is unreachable from then on
  bool fail_boot = false;     // the next boot fails, the host stays
  bool block = false;         // boots wait for open_gate()
  std::atomic<bool> lost{false};
  std::atomic<int> inside{0};
  std::mutex mu;
  std::condition_variable cv;
  bool gate_open = false;
  void open_gate() {
    std::lock_guard<std::mutex> lock(mu);
    gate_open = true;
    cv.notify_all();
  }
};

// A pool member: the shared fake backend acting as libvirt on `h`.
std::unique_ptr<Backend> member_on(FakeHost& h) {
  auto b = std::make_unique<FakeBackend>();
  b->backend_name = "libvirt";
  b->on_accel = [&h](const AccelRequest&) -> Result<AccelVerdict> {
    return AccelVerdict{h.accel, h.uri + " says " + (h.accel == Accel::kKvm ? "kvm" : "tcg")};
  };
  b->on_boot = [&h](const BootRequest&) -> Result<BootOutcome> {
    ++h.inside;
    if (h.block) {
      std::unique_lock<std::mutex> lock(h.mu);
      h.cv.wait(lock, [&] { return h.gate_open; });
    }
    --h.inside;
    if (h.lose_on_boot) {
      h.lost = true;
      return make_error("lost domain: client socket is closed");
    }
    if (h.fail_boot) return make_error("cannot open the console");
    BootOutcome out;
    out.backend = "libvirt";
    out.hypervisor_uri = h.uri;
    return out;
  };
  b->on_reachable = [&h]() -> Result<void> {
    return h.lost ? make_error("the connection to libvirt at " + h.uri + " is lost")
                  : Result<void>();
  };
  return b;
}

std::unique_ptr<PoolBackend> pool_of(std::vector<std::pair<FakeHost*, int>> hosts) {
  std::vector<PoolHost> list;
  std::map<std::string, FakeHost*> by_uri;
  for (auto& [h, slots] : hosts) {
    list.push_back({h->uri, slots});
    by_uri[h->uri] = h;
  }
  std::vector<std::string> warnings;
  auto pool = PoolBackend::open(
      list,
      [&](const PoolHost& p) -> Result<std::unique_ptr<Backend>> {
        return member_on(*by_uri.at(p.uri));
      },
      warnings);
  EXPECT_TRUE(pool.ok());
  EXPECT_TRUE(warnings.empty());
  return pool.ok() ? std::move(*pool) : nullptr;
}

TEST(HostPool, HostsParseWithSlotsAndBadItemsAreNamed) {
  auto h = parse_hosts("qemu:///system*2, qemu+tcp://127.0.0.1:16509/system");
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[0].uri, "qemu:///system");
  EXPECT_EQ((*h)[0].slots, 2);
  EXPECT_EQ((*h)[1].uri, "qemu+tcp://127.0.0.1:16509/system");
  EXPECT_EQ((*h)[1].slots, 1);
  EXPECT_NE(parse_hosts("qemu:///system*0").error().message.find("item 'qemu:///system*0': slots"),
            std::string::npos);
  EXPECT_NE(parse_hosts("qemu:///system*two").error().message.find("whole number"),
            std::string::npos);
  EXPECT_NE(parse_hosts("lab2").error().message.find("'lab2' is not a libvirt URI"),
            std::string::npos);
  EXPECT_NE(parse_hosts("qemu:///system,").error().message.find("an empty item"),
            std::string::npos);
  EXPECT_NE(parse_hosts("qemu:///system,qemu:///system*2").error().message.find("listed twice"),
            std::string::npos);
}

TEST(HostPool, HostsFileErrorsNameFileLineAndKey) {
  auto ok = parse_hosts_file(
      "hosts:\n  - {uri: qemu:///system, slots: 2}\n  - qemu+ssh://root@lab/system\n", "h.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].slots, 2);
  EXPECT_EQ((*ok)[1].uri, "qemu+ssh://root@lab/system");
  EXPECT_EQ(
      parse_hosts_file("hosts:\n  - {uri: qemu:///system, slots: -1}\n", "h.yaml").error().message,
      "h.yaml:2:34: hosts[0].slots: a whole number from 1 to 1024");
  // The one YAML error style (util/yaml_reader): a misspelt key gets "did you mean" (this read
  // "unknown key (valid: uri, slots)" before the hosts file went through YamlReader).
  EXPECT_EQ(
      parse_hosts_file("hosts:\n  - {uri: qemu:///system, slot: 2}\n", "h.yaml").error().message,
      "h.yaml:2:27: hosts[0].slot: unknown key; did you mean 'slots'?");
  EXPECT_EQ(parse_hosts_file("hosts:\n  - {uri: qemu:///system, colour: red}\n", "h.yaml")
                .error()
                .message,
            "h.yaml:2:27: hosts[0].colour: unknown key; valid keys here: uri, slots, power_cycle, "
            "config, cmdline, identity, known_hosts, listen, report_address, boot_timeout, "
            "reboot_timeout");
  EXPECT_EQ(parse_hosts_file("host:\n  - qemu:///system\n", "h.yaml").error().message,
            "h.yaml:1:1: host: unknown key; did you mean 'hosts'?");
  EXPECT_EQ(
      parse_hosts_file("hosts:\n  - {uri: qemu:///system, slots: two}\n", "h.yaml").error().message,
      "h.yaml:2:34: hosts[0].slots: expected an integer, got 'two'");
  EXPECT_EQ(parse_hosts_file("hosts:\n  - {slots: 2}\n", "h.yaml").error().message,
            "h.yaml:2:5: hosts[0]: missing required key 'uri'");
  EXPECT_EQ(
      parse_hosts_file("hosts:\n  - {uri: qemu:///a, uri: qemu:///b}\n", "h.yaml").error().message,
      "h.yaml:2:22: hosts[0].uri: duplicate key (first at 2:6)");
  EXPECT_EQ(parse_hosts_file("hosts: {uri: qemu:///system}\n", "h.yaml").error().message,
            "h.yaml:1:8: hosts: expected a list, got a map");
  EXPECT_EQ(parse_hosts_file("", "h.yaml").error().message,
            "h.yaml: expected a map with `hosts: [{uri: URI, slots: N}, ...]`");
  EXPECT_EQ(parse_hosts_file("hosts:\n  - lab2\n", "h.yaml").error().message,
            "h.yaml:2:5: hosts[0]: 'lab2' is not a libvirt URI (e.g. qemu:///system, "
            "qemu+ssh://root@lab/system)");
  EXPECT_NE(parse_hosts_file("hosts: [\n", "h.yaml").error().message.find("h.yaml:"),
            std::string::npos);
}

TEST(HostPool, BootsGoToTheHostWithTheMostFreeSlots) {
  FakeHost a{.uri = "qemu:///a", .block = true}, b{.uri = "qemu+tcp://b/system", .block = true};
  auto pool = pool_of({{&a, 2}, {&b, 1}});
  EXPECT_EQ(pool->slots(), 3);
  std::vector<std::thread> boots;
  std::vector<std::string> where(3);
  for (int i = 0; i < 3; ++i) {
    boots.emplace_back([&, i] {
      auto out = pool->boot({});
      if (out.ok()) where[i] = out->hypervisor_uri;
    });
  }
  while (a.inside + b.inside < 3) std::this_thread::yield();
  EXPECT_EQ(a.inside, 2);  // A (2 free) first, then A and B tie at 1 free: A, listed first...
  EXPECT_EQ(b.inside, 1);  // ...then B, the only host with a free slot
  a.open_gate();
  b.open_gate();
  for (auto& t : boots) t.join();
  auto use = pool->usage();
  EXPECT_EQ(use[0].runs, 2);
  EXPECT_EQ(use[1].runs, 1);
}

TEST(HostPool, ALostHostsRunIsRetriedOnAnotherAndNamed) {
  FakeHost a{.uri = "qemu:///a", .lose_on_boot = true}, b{.uri = "qemu+tcp://b/system"};
  auto pool = pool_of({{&a, 1}, {&b, 1}});
  auto out = pool->boot({});
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->hypervisor_uri, "qemu+tcp://b/system");
  ASSERT_EQ(out->lost_hosts.size(), 1u);
  EXPECT_EQ(out->lost_hosts[0], "qemu:///a: lost domain: client socket is closed");
  EXPECT_EQ(pool->slots(), 1);
  // Later runs go to what is left, and each counts once.
  ASSERT_TRUE(pool->boot({}).ok());
  auto use = pool->usage();
  EXPECT_TRUE(use[0].lost);
  EXPECT_EQ(use[0].runs, 0);
  EXPECT_EQ(use[1].runs, 2);
  // With the last host lost, a boot fails (a host failure for the executor: no record).
  b.lose_on_boot = true;
  auto none = pool->boot({});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(
      none.error().message.find("every host of the pool is lost (qemu+tcp://b/system: lost domain"),
      std::string::npos)
      << none.error().message;
  EXPECT_FALSE(pool->reachable().ok());
}

TEST(HostPool, AFailedBootOnAHostThatIsStillThereIsNotRetried) {
  FakeHost a{.uri = "qemu:///a", .fail_boot = true}, b{.uri = "qemu+tcp://b/system"};
  auto pool = pool_of({{&a, 1}, {&b, 1}});
  auto out = pool->boot({});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message, "qemu:///a: cannot open the console");
  EXPECT_EQ(pool->slots(), 2);
  EXPECT_EQ(pool->usage()[1].runs, 0);
}

TEST(HostPool, OneAcceleratorForTheWholePool) {
  FakeHost a{.uri = "qemu:///a", .accel = Accel::kKvm},
      b{.uri = "qemu+tcp://b/system", .accel = Accel::kTcg};
  auto pool = pool_of({{&a, 1}, {&b, 1}});
  auto v = pool->resolve_accel({.choice = AccelChoice::kAuto});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->accel, Accel::kTcg);
  EXPECT_NE(v->reason.find("qemu+tcp://b/system says tcg"), std::string::npos) << v->reason;
  EXPECT_FALSE(pool->resolve_accel({.choice = AccelChoice::kKvm}).ok());
  b.accel = Accel::kKvm;
  v = pool->resolve_accel({.choice = AccelChoice::kAuto});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->accel, Accel::kKvm);
}

TEST(HostPool, AnUnreachableHostIsLeftOutWithAWarning) {
  FakeHost b{.uri = "qemu+tcp://b/system"};
  std::vector<std::string> warnings;
  auto pool = PoolBackend::open(
      {{"qemu:///a", 1}, {"qemu+tcp://b/system", 2}},
      [&](const PoolHost& p) -> Result<std::unique_ptr<Backend>> {
        if (p.uri == "qemu:///a") return make_error("cannot connect to libvirt at qemu:///a");
        return member_on(b);
      },
      warnings);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ((*pool)->slots(), 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "host qemu:///a left out of the pool: cannot connect to libvirt at qemu:///a");
  auto none = PoolBackend::open(
      {{"qemu:///a", 1}},
      [](const PoolHost&) -> Result<std::unique_ptr<Backend>> { return make_error("refused"); },
      warnings);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "no host of the pool can be reached: refused");
}

// A lab machine's entry (backend kexec): its keys, paths relative to the hosts file.
TEST(HostPool, ALabMachinesEntryTakesItsKeysWithPathsRelativeToTheFile) {
  ScopedTestDir dir("foliolab-hosts-keys");
  fs::create_directories(dir / "keys");
  ASSERT_TRUE(write_file_atomic(dir / "keys" / "lab", "key\n").ok());
  ASSERT_TRUE(write_file_atomic(dir / "known_hosts", "lab1 ssh-ed25519 AAAA\n").ok());
  auto hosts = parse_hosts_file(
      "hosts:\n"
      "  - uri: ssh://root@lab1\n"
      "    power_cycle: [ipmitool, -H, lab1-bmc, chassis, power, cycle]\n"
      "    config: [lab1-nic, lab1-nvme]\n"
      "    cmdline: console=ttyS1,115200\n"
      "    identity: keys/lab\n"
      "    known_hosts: " +
          (dir / "known_hosts").string() +
          "\n"
          "    reboot_timeout: 600\n"
          "  - ssh://root@lab2:2222\n",
      (dir / "hosts.yaml").string());
  ASSERT_TRUE(hosts.ok()) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 2u);
  const LabHost& lab = (*hosts)[0].lab;
  EXPECT_EQ(lab.power_cycle.size(), 6u);
  EXPECT_EQ(lab.config, (std::vector<std::string>{"lab1-nic", "lab1-nvme"}));
  ASSERT_EQ(lab.config_locs.size(), 2u);
  EXPECT_EQ(lab.config_locs[1].str(), (dir / "hosts.yaml").string() + ":4:24");
  EXPECT_EQ(lab.cmdline, "console=ttyS1,115200");
  EXPECT_EQ(lab.identity, dir / "keys" / "lab");
  EXPECT_EQ(lab.known_hosts, dir / "known_hosts");
  EXPECT_EQ(lab.reboot_timeout_s, 600);
  EXPECT_TRUE((*hosts)[1].lab.power_cycle.empty());
  EXPECT_EQ(*pool_backend_name(*hosts), "kexec");
}

// Every malformed lab machine a hosts file can hold, refused with file:line:col (at plan: the
// file is read before anything is built).
TEST(HostPool, MalformedLabMachinesAreRefusedWithTheirPlace) {
  ScopedTestDir dir("foliolab-hosts-bad");
  fs::create_directories(dir / "a-folder");
  const std::string missing = (dir / "no-such-key").string();
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"hosts:\n  - ssh://lab1:99999\n",
            "h.yaml:2:5: hosts[0]: 'ssh://lab1:99999' is not an "
            "ssh URI (the port must be from 1 to 65535"},
           {"hosts:\n  - {uri: 'ssh://-Fpwn.conf'}\n",
            "h.yaml:2:11: hosts[0].uri: 'ssh://-Fpwn.conf' is not an ssh URI (a host name "
            "beginning with '-' would be read by ssh as an option"},
           {"hosts:\n  - ssh://-oProxyCommand@lab1\n", "h.yaml:2:5: hosts[0]: "},
           {"hosts:\n  - ssh://fd00::5\n", "an IPv6 address goes in brackets"},
           {"hosts:\n  - ssh://[fd00::5]\n",
            "h.yaml:2:5: hosts[0]: a lab machine at an IPv6 address needs listen and "
            "report_address (IPv4)"},
           {"hosts:\n  - {uri: ssh://lab1, listen: lab-gw}\n",
            "h.yaml:2:31: hosts[0].listen: an IPv4 address"},
           {"hosts:\n  - {uri: ssh://lab1, identity: " + missing + "}\n",
            "h.yaml:2:33: hosts[0].identity: identity file " + missing + ": does not exist"},
           {"hosts:\n  - {uri: ssh://lab1, known_hosts: a-folder}\n",
            "h.yaml:2:36: hosts[0].known_hosts: known_hosts file " + (dir / "a-folder").string() +
                ": is not a regular file"},
           {"hosts:\n  - {uri: ssh://lab1, known_hosts: 'a folder/known'}\n",
            "no blank, quote, '%'"},
           {"hosts:\n  - ssh://lab1\n  - ssh://root@lab1:22/\n",
            "h.yaml:3:5: hosts[1]: ssh://root@lab1:22/ is root@lab1:22 again (first at 2:5): a lab "
            "machine "
            "joins a pool once"},
           {"hosts:\n  - ssh://LAB1:22\n  - ssh://root@lab1\n",
            "h.yaml:3:5: hosts[1]: ssh://root@lab1 is "
            "root@lab1:22 again (first at 2:5)"},
           {"hosts:\n  - qemu:///system\n  - ssh://lab1\n",
            "h.yaml:3:5: hosts[1]: ssh://lab1 is a lab machine (ssh://, backend kexec), but "
            "qemu:///system "
            "(at 2:5) is a libvirt host: a pool is either libvirt hosts or lab machines"},
           {"hosts:\n  - qemu:///system\n  - qemu:///system\n",
            "h.yaml:3:5: hosts[1]: host qemu:///system is listed twice (first at 2:5)"}}) {
    const std::string file = dir.path().string() + "/h.yaml";
    auto hosts = parse_hosts_file(text, file);
    ASSERT_FALSE(hosts.ok()) << text;
    EXPECT_THAT(hosts.error().message, HasSubstr(says)) << text;
    EXPECT_TRUE(hosts.error().message.starts_with(file + ":")) << hosts.error().message;
  }
  for (const char* list : {"ssh://lab1,ssh://lab1:22/", "ssh://lab1:0", "ssh://-x"}) {
    EXPECT_FALSE(parse_hosts(list).ok()) << list;
  }
}

TEST(HostPool, ALabMachineRunsOneRunAtATimeAndLabKeysNeedOne) {
  EXPECT_EQ(
      parse_hosts_file("hosts:\n  - {uri: ssh://root@lab1, slots: 2}\n", "h.yaml").error().message,
      "h.yaml:2:35: hosts[0].slots: ssh://root@lab1 is a lab machine: it runs one run at a "
      "time (slots: 1); list more machines instead");
  EXPECT_FALSE(parse_hosts("ssh://root@lab1*2").ok());
  EXPECT_EQ(
      parse_hosts_file("hosts:\n  - {uri: qemu:///system, power_cycle: [x]}\n", "h.yaml")
          .error()
          .message,
      "h.yaml:2:27: hosts[0].power_cycle: only a lab machine (an ssh:// URI, backend kexec) takes "
      "power_cycle");
  auto mixed = parse_hosts("qemu:///system,ssh://root@lab1");
  ASSERT_TRUE(mixed.ok());
  EXPECT_FALSE(pool_backend_name(*mixed).ok());
  EXPECT_EQ(*pool_backend_name(*parse_hosts("qemu:///system")), "libvirt");
}

}  // namespace
}  // namespace foliolab
