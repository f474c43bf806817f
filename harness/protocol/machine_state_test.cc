// The machine's state across the host/guest contract (issue 29): the job lines the host writes,
// the `state`, `prepare` and `monitor` records it reads back, the success rates it derives, and
// the run record that keeps them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/state_check.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "protocol/job.h"
#include "protocol/run_report.h"
#include "results/record_codec.h"
#include "testing/record_fixture.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

Experiment load_state(const std::string& extra, const std::string& arch = "x86_64",
                      const std::string& kernel_extra = "") {
  auto exp = parse_experiment(
      "name: q\nkernels:\n  - name: k\n" + kernel_extra + "archs: [" + arch +
          "]\nmachine: {memory: 1G}\nknobs:\n  a: {enabled: always, defrag: never}\n"
          "workloads:\n  - name: fault\n" +
          extra,
      "q.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

TEST(MachineStateJob, RendersSwapZswapCgroupPrepareAndMonitorLines) {
  Experiment e = parse_experiment(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
machine: {memory: 1G, swap: {type: zram, size: 256M}, zswap: {enabled: true, compressor: lz4}}
knobs: {a: {enabled: always}}
workloads: [{name: fault}]
cgroup: {memory.max: 32M}
prepare:
  - fragment: {method: thpscale}
  - fragment: {order: 4, unusable: 0.9, seed: 3, pin: true, reserve: 100M}
  - reclaim: 8M
monitor: {period: 50ms, counters: [vmstat.pswpout, memcg.anon]}
)",
                                  "q.yaml")
                     .value();
  auto job = render_job(e, expand(e).at(0));
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_THAT(*job, HasSubstr("swap zram 268435456 -\n"
                              "zswap lz4\n"
                              "cgroup memory.max 33554432\n"
                              "prepare fragment thpscale 0 0 1 0 0\n"
                              "prepare fragment unusable 4 0.9 3 1 104857600\n"
                              "prepare reclaim 8388608\n"
                              "monitor 50\n"
                              "monitor_counter vmstat.pswpout\n"
                              "monitor_counter memcg.anon\n"));
  e.machine.swap.type = SwapSpec::Type::kDisk;
  job = render_job(e, expand(e).at(0));
  ASSERT_TRUE(job.ok());
  EXPECT_THAT(*job, HasSubstr("swap disk 268435456 foliolab-swap\n"));
}

// churn's line carries its own fields; its size defaults to 1.5 x the guest's memory.
TEST(MachineStateJob, ChurnLineCarriesSizeFileSizePassesAndBackground) {
  Experiment e = parse_experiment(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
machine: {memory: 512M}
knobs: {a: {enabled: always}}
workloads: [{name: fault}]
prepare:
  - fragment: {method: churn}
  - fragment: {method: churn, size: 256M, file_size: 16K, passes: 3, seed: 5, background: true}
)",
                                  "q.yaml")
                     .value();
  auto job = render_job(e, expand(e).at(0));
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_THAT(*job, HasSubstr("prepare fragment churn 0 0 1 0 0 805306368 65536 1 0\n"
                              "prepare fragment churn 0 0 5 0 0 268435456 16384 3 1\n"));
  // The scratch disk holds the larger step's files, their inodes and the journal.
  EXPECT_EQ(scratch_disk_bytes(e.state.prepare, 512), 768ull * 9 / 8 * (1 << 20) + (128 << 20));
}

TEST(MachineStateCheck, RefusesWhatTheKernelOrBackendCannotDo) {
  auto message = [](const Experiment& e) {
    Result<void> st = check_machine_state(e);
    return st.ok() ? std::string("(ok)") : st.error().message;
  };
  EXPECT_EQ(message(load_state("prepare:\n  - fragment: {order: 10, unusable: 0.5}\n")), "(ok)");
  EXPECT_EQ(message(load_state("prepare:\n  - fragment: {order: 11, unusable: 0.5}\n")),
            "q.yaml:11:15: prepare[0].fragment.order: order 11 is beyond the largest buddy order "
            "10 of kernel k (x86_64, 4K pages)");
  EXPECT_EQ(message(load_state("prepare:\n  - fragment: {order: 13, unusable: 0.5}\n", "arm64",
                               "    config: [arm64-64k]\n")),
            "(ok)");
  EXPECT_THAT(message(load_state("prepare:\n  - fragment: {method: thpscale}\n", "arm64",
                                 "    config: [arm64-64k]\n")),
              HasSubstr("thpscale fills with PMD THPs, 512M each at 64K pages"));
  Experiment host = load_state("cgroup: {memory.max: 32M}\n");
  host.machine.backend = "host";
  EXPECT_THAT(message(host), HasSubstr("the host backend runs on this machine's own memory"));
  EXPECT_THAT(message(load_state("prepare:\n  - fragment: {method: thpscale, reserve: 1G}\n")),
              HasSubstr("1024 MiB leaves nothing of the guest's 1024 MiB to fragment"));
  EXPECT_THAT(message(load_state("monitor: {period: 100ms, counters: [memcg.anon]}\n")),
              HasSubstr("memcg.anon: memcg counters are the workload cgroup's memory.stat"));
}

// `monitor: {period: 100ms}` plans: the default counters pass the plan's checks and reach the
// guest's job, one monitor_counter line each.
TEST(MachineStateCheck, MonitorWithDefaultCountersPlans) {
  const Experiment e = load_state("monitor: {period: 100ms}\n");
  const Result<void> st = check_machine_state(e);
  EXPECT_TRUE(st.ok()) << st.error().message;
  auto job = render_job(e, expand(e).at(0));
  ASSERT_TRUE(job.ok()) << job.error().message;
  std::string lines = "monitor 100\n";
  for (const std::string& c : default_monitor_counters()) lines += "monitor_counter " + c + "\n";
  EXPECT_THAT(*job, HasSubstr(lines));
}

// The workloads that swap (swap, thp-swap-allocator) need machine.swap; swap a memory limit
// below its size, from cgroup: or its own memory_max, never both.
TEST(MachineStateCheck, SwappingWorkloadsNeedSwapAndALimit) {
  auto message = [](const std::string& machine, const std::string& rest) {
    auto e =
        parse_experiment("name: q\nkernels: [{name: k}]\narchs: [x86_64]\nmachine: {memory: 512M" +
                             machine + "}\nknobs: {a: {enabled: always}}\n" + rest,
                         "q.yaml");
    if (!e.ok()) return "(load) " + e.error().message;
    Result<void> st = check_machine_state(*e);
    return st.ok() ? std::string("(ok)") : st.error().message;
  };
  const std::string zram = ", swap: {type: zram, size: 64M}";
  EXPECT_EQ(message(zram, "cgroup: {memory.max: 32M}\nworkloads: [{name: swap}]\n"), "(ok)");
  EXPECT_EQ(message(zram, "workloads: [{name: swap, params: {memory_max: 32M}}]\n"), "(ok)");
  EXPECT_EQ(message(zram, "workloads: [{name: thp-swap-allocator}]\n"), "(ok)");
  EXPECT_THAT(message("", "workloads: [{name: thp-swap-allocator}]\n"),
              HasSubstr("workloads[0]: workload thp-swap-allocator swaps out: it needs "
                        "machine.swap"));
  EXPECT_THAT(message(zram, "workloads: [{name: swap}]\n"),
              HasSubstr("workload swap writes 67108864 bytes and needs a memory limit below "
                        "that"));
  EXPECT_THAT(message(zram, "cgroup: {memory.max: 64M}\nworkloads: [{name: swap}]\n"),
              HasSubstr("needs a memory limit below that"));
  EXPECT_EQ(
      message(zram, "cgroup: {memory.max: 64M, memory.high: 40M}\nworkloads: [{name: swap}]\n"),
      "(ok)");
  EXPECT_THAT(message(zram, "workloads: [{name: swap, params: {memory_max: 64M}}]\n"),
              HasSubstr("params.memory_max: 67108864 bytes is not below size"));
  EXPECT_THAT(message(zram,
                      "cgroup: {memory.max: 32M}\n"
                      "workloads: [{name: swap, params: {memory_max: 16M}}]\n"),
              HasSubstr("cgroup: workload swap has its own memory_max"));
}

TEST(MachineStateReport, ReadsStatePrepareAndMonitorRecordsAndDerivesSuccessRates) {
  StreamBuilder b;
  b.prologue();
  b.kv("prepare", {{"step", "fragment"},
                   {"status", "ok"},
                   {"method", "thpscale"},
                   {"unusable_before", "12"},
                   {"unusable_after", "987"}});
  b.kv("state",
       {{"rep", "0"}, {"phase", "before"}, {"unusable.all.9", "987"}, {"buddy.DMA32.9", "0"}});
  b.kv("counters", {{"rep", "0"},
                    {"phase", "before"},
                    {"vmstat.thp_fault_alloc", "0"},
                    {"vmstat.thp_fault_fallback", "0"}});
  b.workload(0).out("FOLIOLAB-WORKLOAD-OK\n");
  b.kv("monitor", {{"rep", "0"},
                   {"period_ms", "100"},
                   {"counters", "vmstat.pswpout meminfo.MemFree"},
                   {"s0", "0 10 5000"},
                   {"s1", "101 20 4000"},
                   {"s2", "205 bad"}});
  b.kv("counters", {{"rep", "0"},
                    {"phase", "after"},
                    {"vmstat.thp_fault_alloc", "8"},
                    {"vmstat.thp_fault_fallback", "24"}});
  b.kv("state",
       {{"rep", "0"}, {"phase", "after"}, {"unusable.all.9", "990"}, {"buddy.DMA32.9", "0"}});
  b.done();
  RunReport r = parse_run_report(b.bytes(), 1);
  ASSERT_EQ(r.prepared.size(), 1u);
  EXPECT_EQ(r.prepared[0].step, "fragment");
  ASSERT_TRUE(r.prepared[0].find("unusable_after"));
  EXPECT_EQ(*r.prepared[0].find("unusable_after"), "987");
  ASSERT_EQ(r.reps.size(), 1u);
  const RepResult& rep = r.reps[0];
  EXPECT_EQ(rep.state_before.at("unusable.all.9"), 987);
  EXPECT_EQ(rep.state_after.at("unusable.all.9"), 990);
  EXPECT_FALSE(rep.deltas.contains("unusable.all.9"));    // a state, not a counter
  EXPECT_DOUBLE_EQ(rep.metrics.at("success.thp"), 0.25);  // 8 / (8 + 24)
  EXPECT_EQ(rep.monitor.period_ms, 100);
  EXPECT_EQ(rep.monitor.t_ms, (std::vector<int64_t>{0, 101}));
  EXPECT_EQ(rep.monitor.values.at(1), (std::vector<int64_t>{5000, 4000}));
  EXPECT_THAT(r.problems, ::testing::Contains(HasSubstr("sample s2 has 1 values for 2 counters")));
}

// The fallbacks a fault workload met, per size, from the mthp stats the agent reads before and
// after the rep (the PMD size is one of them) and from /proc/vmstat's PMD THP counters: count
// metrics beside the success rates, for the sizes that faulted only.
TEST(MachineStateReport, DerivesPerSizeFallbacksTheWorkloadMet) {
  StreamBuilder b;
  b.prologue();
  auto counters = [&](const char* phase, const char* thp_alloc, const char* thp_fb,
                      const char* k64_alloc, const char* k64_fb, const char* k2m_fb) {
    b.kv("counters", {{"rep", "0"},
                      {"phase", phase},
                      {"vmstat.thp_fault_alloc", thp_alloc},
                      {"vmstat.thp_fault_fallback", thp_fb},
                      {"mthp.64kB.anon_fault_alloc", k64_alloc},
                      {"mthp.64kB.anon_fault_fallback", k64_fb},
                      {"mthp.64kB.shmem_alloc", "0"},
                      {"mthp.64kB.shmem_fallback", "0"},
                      {"mthp.2048kB.anon_fault_alloc", thp_alloc},
                      {"mthp.2048kB.anon_fault_fallback", k2m_fb},
                      {"mthp.16kB.anon_fault_alloc", "5"},
                      {"mthp.16kB.anon_fault_fallback", "0"}});
  };
  counters("before", "100", "7", "1000", "3", "7");
  b.workload(0).out("FOLIOLAB-WORKLOAD-OK\n");
  counters("after", "116", "23", "1900", "103", "23");
  b.done();
  RunReport r = parse_run_report(b.bytes(), 1);
  ASSERT_EQ(r.reps.size(), 1u);
  const auto& m = r.reps[0].metrics;
  EXPECT_DOUBLE_EQ(m.at("fallback.thp"), 16);
  EXPECT_DOUBLE_EQ(m.at("success.thp"), 0.5);
  EXPECT_DOUBLE_EQ(m.at("fallback.anon.64kB"), 100);
  EXPECT_DOUBLE_EQ(m.at("success.anon.64kB"), 0.9);  // 900 / (900 + 100)
  EXPECT_DOUBLE_EQ(m.at("fallback.anon.2048kB"), 16);
  EXPECT_FALSE(m.contains("fallback.anon.16kB"));   // did not fault in this rep
  EXPECT_FALSE(m.contains("fallback.shmem.64kB"));  // no shmem faults
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
}

TEST(MachineStateRecord, StatePreparedAndMonitorRoundTripAndOlderRecordsLoad) {
  FakeRun f;
  f.metrics = {{"faults", {100, 100}}};
  RunRecord r = fake_record(f);
  const nlohmann::json plain = encode_record(r);
  EXPECT_FALSE(plain.contains("prepared"));  // only written when there is one
  EXPECT_FALSE(plain.at("reps")[0].contains("state"));
  r.prepared = {{"swap", {{"status", "ok"}, {"swap_total_kb", "262140"}}}};
  r.reps[0].state_before = {{"unusable.all.9", 12}};
  r.reps[0].state_after = {{"unusable.all.9", 990}};
  r.reps[1].monitor = {100, {"vmstat.pswpout"}, {0, 100}, {{3, 9}}};
  const nlohmann::json j = encode_record(r);
  auto back = parse_record(j.dump());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(encode_record(*back), j);
  EXPECT_EQ(back->samples("state.after.unusable.all.9"), std::vector<double>{990});
  auto old = parse_record(plain.dump());
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->prepared.empty());
}

}  // namespace
}  // namespace foliolab
