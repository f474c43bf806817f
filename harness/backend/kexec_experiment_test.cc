#include "backend/kexec_experiment.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/loader.h"

namespace foliolab {
namespace {

Experiment load(const std::string& machine, const std::string& more = "") {
  auto exp = parse_experiment(
      "name: k\nkernels: [{name: a}, {name: b, config: [kexec]}]\n"
      "archs: [x86_64]\nmachine: {backend: kexec" +
          machine + "}\nknobs: {none: {}}\nworkloads: [{name: fault}]\n" + more,
      "k.yaml");
  if (!exp.ok()) {
    ADD_FAILURE() << exp.error().message;
    return {};
  }
  return *exp;
}

TEST(KexecExperiment, EveryKernelGetsTheKexecFragmentThenEveryHostsOnce) {
  Experiment exp = load(", connect: ssh://root@lab1");
  PoolHost one{.uri = "ssh://root@lab1"}, two{.uri = "ssh://root@lab2"};
  one.lab.config = {"lab-nic"};
  one.lab.config_locs = {{"hosts.yaml", 4, 13}};
  two.lab.config = {"lab-nic", "lab2-nvme"};
  two.lab.power_cycle = {"ipmitool"};
  auto warnings = settle_kexec_experiment(exp, {one, two});
  ASSERT_TRUE(warnings.ok()) << warnings.error().message;
  EXPECT_EQ(exp.kernels[0].config, (std::vector<std::string>{"kexec", "lab-nic", "lab2-nvme"}));
  EXPECT_EQ(exp.kernels[1].config, exp.kernels[0].config);  // listed once
  ASSERT_EQ(exp.kernels[0].config_locs.size(), 3u);
  EXPECT_EQ(exp.kernels[0].config_locs[1].str(), "hosts.yaml:4:13");
  // lab1 has no power switch: said, not refused.
  ASSERT_EQ(warnings->size(), 1u);
  EXPECT_NE((*warnings)[0].find("ssh://root@lab1 has no power_cycle"), std::string::npos);
}

TEST(KexecExperiment, WhatALabMachineCannotBeGivenIsRefusedWithItsPlace) {
  Experiment image = load(", image: debian-redis");
  auto refused = settle_kexec_experiment(image, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message.rfind(
                "k.yaml:4:34: machine.image debian-redis: not with machine.backend kexec", 0),
            0u)
      << refused.error().message;
  Experiment swap = load(", swap: {type: disk, size: 1G}");
  auto st = settle_kexec_experiment(swap, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("machine.swap type disk"), std::string::npos);
  Experiment churn = load("", "prepare:\n  - fragment: {method: churn, size: 64M}\n");
  st = settle_kexec_experiment(churn, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("k.yaml:8:15: prepare fragment method churn"),
            std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("scratch disk"), std::string::npos);
  Experiment zram = load(", swap: {type: zram, size: 256M}");
  EXPECT_TRUE(settle_kexec_experiment(zram, {}).ok());
}

// machine.connect, checked at plan with its place: what would reach ssh as an option, a port
// out of range, an IPv6 address (its records need IPv4 addresses a hosts file gives).
TEST(KexecExperiment, AMalformedConnectIsRefusedWithItsPlace) {
  for (const auto& [uri, why] : std::vector<std::pair<std::string, std::string>>{
           {"ssh://-Fpwn.conf", "a host name beginning with '-' would be read by ssh as an option"},
           {"ssh://root@lab1:99999", "the port must be from 1 to 65535"},
           {"ssh://-oProxyCommand=x@lab1", "a user name is letters"},
           {"ssh://fd00::5", "an IPv6 address goes in brackets"},
           {"ssh://[fd00::5]", "needs listen and report_address (IPv4) from a hosts file"}}) {
    Experiment exp = load(", connect: '" + uri + "'");
    auto st = settle_kexec_experiment(
        exp, {PoolHost{.uri = exp.machine.connect, .loc = exp.machine.connect_loc}});
    ASSERT_FALSE(st.ok()) << uri;
    EXPECT_EQ(st.error().message.rfind("k.yaml:4:36: machine.connect: ", 0), 0u)
        << st.error().message;
    EXPECT_NE(st.error().message.find(why), std::string::npos) << st.error().message;
  }
  Experiment flag = load("");
  auto st = settle_kexec_experiment(flag, {PoolHost{.uri = "ssh://lab1:0", .loc = {"--connect"}}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("--connect: 'ssh://lab1:0'", 0), 0u) << st.error().message;
}

}  // namespace
}  // namespace foliolab
