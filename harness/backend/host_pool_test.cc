#include "backend/host_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <thread>

#include "testing/fake_backend.h"

namespace foliolab {
namespace {

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
  auto hosts = parse_hosts_file(
      "hosts:\n"
      "  - uri: ssh://root@lab1\n"
      "    power_cycle: [ipmitool, -H, lab1-bmc, chassis, power, cycle]\n"
      "    config: [lab1-nic, lab1-nvme]\n"
      "    cmdline: console=ttyS1,115200\n"
      "    identity: keys/lab\n"
      "    known_hosts: /etc/foliolab/known_hosts\n"
      "    reboot_timeout: 600\n"
      "  - ssh://root@lab2:2222\n",
      "/srv/lab/hosts.yaml");
  ASSERT_TRUE(hosts.ok()) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 2u);
  const LabHost& lab = (*hosts)[0].lab;
  EXPECT_EQ(lab.power_cycle.size(), 6u);
  EXPECT_EQ(lab.config, (std::vector<std::string>{"lab1-nic", "lab1-nvme"}));
  ASSERT_EQ(lab.config_locs.size(), 2u);
  EXPECT_EQ(lab.config_locs[1].str(), "/srv/lab/hosts.yaml:4:24");
  EXPECT_EQ(lab.cmdline, "console=ttyS1,115200");
  EXPECT_EQ(lab.identity, "/srv/lab/keys/lab");
  EXPECT_EQ(lab.known_hosts, "/etc/foliolab/known_hosts");
  EXPECT_EQ(lab.reboot_timeout_s, 600);
  EXPECT_TRUE((*hosts)[1].lab.power_cycle.empty());
  EXPECT_EQ(*pool_backend_name(*hosts), "kexec");
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
