#include "catalog/plan_limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"
#include "model/matrix.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kHostMib = 24 * 1024;  // a 24 GiB host

std::string check(const std::string& extra, const std::string& name = "p",
                  const std::string& results = "/r") {
  const std::string text = "name: " + name +
                           "\nkernels: [{name: k}]\narchs: [x86_64, arm64]\n"
                           "knobs: {a: {}, b: {}}\nworkloads: [{name: fault}]\n" +
                           extra;
  auto exp = parse_experiment(text, "x.yaml");
  if (!exp.ok()) return "parse: " + exp.error().message;
  Result<void> st = check_plan_limits(*exp, HostFacts{kHostMib}, results);
  return st.ok() ? "ok" : st.error().message;
}

TEST(PlanLimits, MemTotal) {
  EXPECT_EQ(parse_mem_total_mb("MemTotal:       24634412 kB\nMemFree: 1 kB\n"), 24057u);
  EXPECT_EQ(parse_mem_total_mb("MemFree: 1 kB\n"), std::nullopt);
  EXPECT_EQ(parse_mem_total_mb("MemTotal: lots\n"), std::nullopt);
  EXPECT_FALSE(read_host_facts("/nonexistent/meminfo").mem_total_mb);
}

TEST(PlanLimits, GuestMemoryAboveTheHost) {
  EXPECT_EQ(check("machine: {memory: 4T}\n"),
            "x.yaml:6:19: machine.memory: the guest needs 4194304 MiB but this host has 24576 "
            "MiB (MemTotal)");
  EXPECT_EQ(check("machine: {memory: 2G}\n"), "ok");
}

TEST(PlanLimits, NumaTotalAboveTheHost) {
  EXPECT_EQ(
      check(
          "machine:\n  cpus: 2\n  numa:\n    nodes: [{cpus: [0], memory: 16G}, {cpus: [1], memory: "
          "16G}]\n"),
      "x.yaml:9:5: machine.numa: the guest needs 32768 MiB (sum of the NUMA nodes) but "
      "this host has 24576 MiB (MemTotal)");
}

TEST(PlanLimits, UnknownHostMemoryIsNotChecked) {
  auto exp = parse_experiment(
      "name: p\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {a: {}}\nworkloads: [{name: "
      "fault}]\nmachine: {memory: 4T}\n",
      "x.yaml");
  ASSERT_TRUE(exp.ok());
  EXPECT_TRUE(check_plan_limits(*exp, HostFacts{}, "/r").ok());
}

TEST(PlanLimits, Repeat) {
  EXPECT_EQ(check("repeat: 1000000000\n"),
            "x.yaml:6:9: repeat: at most 10000 repetitions per run, got 1000000000");
  EXPECT_EQ(check("repeat: 10000\n"), "ok");
}

TEST(PlanLimits, Timeout) {
  EXPECT_EQ(check("timeout: 99999999\n"),
            "x.yaml:6:10: timeout: at most 604800 seconds (7 days) per guest boot, got 99999999");
}

TEST(PlanLimits, LongName) {
  // The loader bounds a name at 200 characters (model/experiment.h kMaxNameLength), below
  // NAME_MAX, so that every session that plans can be pushed to a lab server.
  EXPECT_EQ(check("", std::string(5000, 'n')),
            "parse: x.yaml:1:7: name: a name of at most 200 characters (it names the sessions' "
            "folder); this one has 5000");
  EXPECT_EQ(check("", std::string(200, 'n')), "ok");
}

TEST(PlanLimits, LongResultsPath) {
  EXPECT_THAT(check("", std::string(200, 'n'), "/" + std::string(3900, 'r')),
              HasSubstr("x.yaml:1:7: name: result paths would have"));
}

TEST(PlanLimits, LongRunId) {
  auto out = check("", "p", "/r");
  EXPECT_EQ(out, "ok");
  // Kernel, knob set and label names of at most 60 characters each keep a run id under 200.
  const auto text = [](size_t knobs) {
    return "name: p\nkernels: [{name: " + std::string(60, 'k') + "}]\narchs: [x86_64]\nknobs: {" +
           std::string(knobs, 'a') +
           ": {}}\nworkloads: [{name: fault, label: " + std::string(60, 'l') + "}]\n";
  };
  auto exp = parse_experiment(text(60), "x.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_TRUE(check_plan_limits(*exp, HostFacts{kHostMib}, "/r").ok());
  EXPECT_LT(expand(*exp).front().id.size(), 200u);
  auto longer = parse_experiment(text(61), "x.yaml");
  ASSERT_FALSE(longer.ok());
  EXPECT_THAT(longer.error().message, HasSubstr("a knob set name of at most 60"));
}

TEST(PlanLimits, EverythingExcluded) {
  EXPECT_EQ(check("exclude: [{arch: x86_64}, {arch: arm64}]\n"),
            "x.yaml:6:11: exclude: no runs left: the 4 runs of the matrix are all excluded");
  EXPECT_EQ(check("exclude: [{arch: x86_64}]\n"), "ok");
}

TEST(PlanLimits, TimeEstimate) {
  auto exp = parse_experiment(
      "name: p\nkernels: [{name: k}]\narchs: [x86_64, arm64]\nknobs: {a: {}, b: {}}\n"
      "workloads: [{name: fault}]\ntimeout: 600\n",
      "x.yaml");
  ASSERT_TRUE(exp.ok());
  EXPECT_THAT(format_time_estimate(*exp, expand(*exp)),
              HasSubstr("time: at most 40m 0s (4 runs × 600 s timeout, 3 repetitions each)"));
}

}  // namespace
}  // namespace foliolab
