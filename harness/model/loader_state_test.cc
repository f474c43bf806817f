// The machine-state keys (model/machine_state.h): machine.swap, machine.zswap, prepare, cgroup,
// monitor; what they read into and how bad input is named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/loader.h"
#include "model/matrix.h"
#include "testing/minimal_experiment.h"
#include "util/build_info.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;

TEST(LoaderState, ReadsEveryKey) {
  auto exp = parse_minimal(R"(machine:
  memory: 1G
  swap: {type: zram, size: 256M, compressor: lz4}
  zswap: {enabled: true, compressor: lz4}
cgroup: {memory.max: 32M, memory.swap.max: max}
prepare:
  - fragment: {method: thpscale, seed: 7, pin: true}
  - fragment: {order: 4, unusable: 0.9, reserve: 64M}
  - reclaim: 16M
monitor: {period: 100ms, counters: [vmstat.pswpout, mthp.64kB.swpout]}
)");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const SwapSpec& s = exp->machine.swap;
  EXPECT_EQ(s.type, SwapSpec::Type::kZram);
  EXPECT_EQ(s.size_mb, 256u);
  EXPECT_EQ(s.compressor, "lz4");
  EXPECT_TRUE(exp->machine.zswap.enabled);
  EXPECT_THAT(exp->state.cgroup.limits, ::testing::ElementsAre(Pair("memory.max", "33554432"),
                                                               Pair("memory.swap.max", "max")));
  ASSERT_EQ(exp->state.prepare.size(), 3u);
  EXPECT_EQ(exp->state.prepare[0].method, "thpscale");
  EXPECT_EQ(exp->state.prepare[0].seed, 7u);
  EXPECT_TRUE(exp->state.prepare[0].pin);
  EXPECT_EQ(exp->state.prepare[1].method, "unusable");  // implied by order and unusable
  EXPECT_EQ(exp->state.prepare[1].order, 4);
  EXPECT_DOUBLE_EQ(exp->state.prepare[1].unusable, 0.9);
  EXPECT_EQ(exp->state.prepare[1].reserve_mb, 64u);
  EXPECT_EQ(exp->state.prepare[2].kind, PrepareStep::Kind::kReclaim);
  EXPECT_EQ(exp->state.prepare[2].reclaim_bytes, 16u << 20);
  EXPECT_EQ(exp->state.monitor.period_ms, 100);
  EXPECT_EQ(exp->state.monitor.counters.size(), 2u);
}

TEST(LoaderState, ReadsChurn) {
  auto exp = parse_minimal(
      "prepare:\n  - fragment: {method: churn, size: 1G, file_size: 16K, passes: 2, background: "
      "true}\n  - fragment: {method: churn}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const PrepareStep& p = exp->state.prepare[0];
  EXPECT_TRUE(is_churn(p));
  EXPECT_EQ(p.churn_mb, 1024u);
  EXPECT_EQ(p.file_kb, 16u);
  EXPECT_EQ(p.passes, 2);
  EXPECT_TRUE(p.background);
  const PrepareStep& d = exp->state.prepare[1];  // thpchallenge's 64 KiB files, 1.5 x memory
  EXPECT_EQ(d.churn_mb, 0u);
  EXPECT_EQ(d.file_kb, 64u);
  EXPECT_EQ(d.passes, 1);
  EXPECT_FALSE(d.background);
  EXPECT_EQ(churn_bytes(d, 1024), 1536ull << 20);
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {method: churn, file_size: 6K}\n"),
              HasSubstr("prepare[0].fragment.file_size: a file size such as 64K or 1M"));
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {method: churn, pin: true}\n"),
              HasSubstr("prepare[0].fragment.pin: pin is not for churn"));
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {method: thpscale, background: true}\n"),
              HasSubstr("prepare[0].fragment.background: background is for method churn"));
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {method: churn, passes: 0}\n"),
              HasSubstr("prepare[0].fragment.passes: integer out of range"));
  // A churn step is part of run ids, each of its fields too.
  auto other = parse_minimal("prepare:\n  - fragment: {method: churn, passes: 2}\n");
  auto plain = parse_minimal("prepare:\n  - fragment: {method: churn}\n");
  ASSERT_TRUE(other.ok() && plain.ok());
  EXPECT_NE(expand(*other).at(0).id, expand(*plain).at(0).id);
}

TEST(LoaderState, BadInputIsLocated) {
  EXPECT_EQ(minimal_error("prepare:\n  - fragment: {method: thpscal}\n"),
            "q.yaml:10:24: prepare[0].fragment.method: unknown fragmentation method 'thpscal'; "
            "did you mean 'thpscale'? (valid: thpscale, unusable, churn)");
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {order: 14, unusable: 0.9}\n"),
              HasSubstr("q.yaml:10:23: prepare[0].fragment.order: integer out of range"));
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {order: 9}\n"),
              HasSubstr("method unusable needs order: N and unusable: X"));
  EXPECT_THAT(minimal_error("prepare:\n  - fragment: {order: 9, unusable: 1.5}\n"),
              HasSubstr("an unusable free space index in (0, 1]"));
  EXPECT_THAT(minimal_error("prepare:\n  - defrag: {}\n"),
              HasSubstr("prepare[0].defrag: unknown key"));
  EXPECT_THAT(minimal_error("machine: {memory: 1G, swap: {type: zram, size: 2G}}\n"),
              HasSubstr("a 2048 MiB zram swap cannot fit a 1024 MiB guest"));
  EXPECT_THAT(minimal_error("machine: {swap: {type: nfs, size: 1G}}\n"),
              HasSubstr("machine.swap.type: unknown swap type 'nfs'"));
  EXPECT_THAT(minimal_error("machine: {swap: {type: disk, size: 1G, compressor: lz4}}\n"),
              HasSubstr("a zram compressor; a disk swap compresses nothing"));
  EXPECT_THAT(minimal_error("machine: {zswap: {enabled: true}}\n"),
              HasSubstr("machine.zswap: zswap caches swap: needs machine.swap"));
  EXPECT_THAT(minimal_error("cgroup: {memory.max: lots}\n"),
              HasSubstr("q.yaml:9:22: cgroup[\"memory.max\"]: 'lots' is not a size"));
  EXPECT_THAT(minimal_error("cgroup: {memory.maxx: 1G}\n"), HasSubstr("did you mean 'memory.max'"));
  EXPECT_THAT(minimal_error("monitor: {period: 1ms, counters: [vmstat.pswpout]}\n"),
              HasSubstr("monitor.period: a period in milliseconds, 10ms..60000ms"));
  EXPECT_THAT(minimal_error("monitor: {period: 100ms, counters: [pswpout]}\n"),
              HasSubstr("'pswpout' is not a counter"));
}

// `monitor: {period: 100ms}` samples the default counters (the issue: it was refused for want of
// `counters`).
TEST(LoaderState, MonitorWithoutCountersSamplesTheDefaults) {
  auto exp = parse_minimal("monitor: {period: 100ms}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->state.monitor.period_ms, 100);
  EXPECT_EQ(exp->state.monitor.counters, default_monitor_counters());
  EXPECT_LE(default_monitor_counters().size(), static_cast<size_t>(kMaxMonitorCounters));
  EXPECT_THAT(default_monitor_counters(), ::testing::Contains("vmstat.thp_fault_fallback"));
  EXPECT_THAT(default_monitor_counters(), ::testing::Contains("vmstat.compact_stall"));
  auto listed = parse_minimal("monitor: {period: 100ms, counters: [vmstat.pswpout]}\n");
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(listed->state.monitor.counters, ::testing::ElementsAre("vmstat.pswpout"));
  EXPECT_THAT(minimal_error("monitor: {counters: [vmstat.pswpout]}\n"),
              HasSubstr("missing required key 'period'"));
}

// docs/machine-state.md lists the default counters as the loader has them.
TEST(LoaderState, ManualListsTheDefaultMonitorCounters) {
  std::ifstream in(std::string(source_dir()) + "/docs/machine-state.md");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string manual = text.str();
  const std::string begin =
      "<!-- monitor-counters:begin (generated: default_monitor_counters_markdown) -->\n";
  const size_t a = manual.find(begin);
  const size_t b = manual.find("<!-- monitor-counters:end -->");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(manual.substr(a + begin.size(), b - a - begin.size()),
            default_monitor_counters_markdown())
      << "update docs/machine-state.md's default monitor counters:\n"
      << default_monitor_counters_markdown();
}

// Fresh-boot runs keep their ids; each state key changes them; the monitor does not.
TEST(LoaderState, StateIsPartOfRunIdsButTheMonitorIsNot) {
  auto fresh = parse_minimal("");
  auto swapped = parse_minimal("machine: {swap: {type: zram, size: 256M}}\n");
  auto fragmented = parse_minimal("prepare:\n  - fragment: {method: thpscale}\n");
  auto limited = parse_minimal("cgroup: {memory.max: 32M}\n");
  auto monitored = parse_minimal("monitor: {period: 100ms, counters: [vmstat.pswpout]}\n");
  for (auto* e : {&fresh, &swapped, &fragmented, &limited, &monitored}) {
    ASSERT_TRUE(e->ok()) << e->error().message;
  }
  const std::string id = expand(*fresh).at(0).id;
  EXPECT_NE(expand(*swapped).at(0).id, id);
  EXPECT_NE(expand(*fragmented).at(0).id, id);
  EXPECT_NE(expand(*limited).at(0).id, id);
  EXPECT_EQ(expand(*monitored).at(0).id, id);
}

}  // namespace
}  // namespace foliolab
