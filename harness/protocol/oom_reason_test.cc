// A workload OOM-killed in its memory cgroup (the issue: reported as "killed by signal 9"): the
// host reads the cgroup's memory.events from the `state` records around the rep
// (protocol/oom_reason.h), and the agent words its own error the same way
// (images/agent/memcg_events.c, compiled into this test as the guest has it).
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "../../images/agent/memcg_events.h"
#include "protocol/oom_reason.h"
#include "protocol/run_report.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

// One rep of `fault` killed by `signal`, its cgroup's memory.events oom_kill `kills_before` and
// `kills_after` around it (none: no cgroup), the agent's error and done status=failed after.
std::string oom_stream(int signal, const std::string& kills_before, const std::string& kills_after,
                       bool agent_error = true) {
  StreamBuilder b;
  b.prologue();
  auto state = [&](const std::string& phase, const std::string& kills) {
    KeyValues kv = {{"rep", "0"}, {"phase", phase}, {"unusable.all.9", "10"}};
    if (!kills.empty()) {
      kv.push_back({"memcg.current", "33554432"});
      kv.push_back({"memcg.events.max", phase == "after" ? "57" : "0"});
      kv.push_back({"memcg.events.oom", phase == "after" ? "3" : "0"});
      kv.push_back({"memcg.events.oom_kill", kills});
    }
    b.kv("state", kv);
  };
  state("before", kills_before);
  b.counters(0, "before", 1, 1).workload(0, -1, signal).out("").counters(0, "after", 1, 1);
  state("after", kills_after);
  if (agent_error) b.error("workload", "rep 0: /workloads/fault killed by signal 9");
  b.done(agent_error ? "failed" : "ok");
  return b.bytes();
}

TEST(OomReason, AnOomKillInTheCgroupIsNamedWithItsCounts) {
  const std::string oom =
      "rep 0: workload fault OOM-killed in its memory cgroup (memory.events: oom 3, oom_kill 1, "
      "max 57)";
  EXPECT_EQ(parse_run_report(oom_stream(9, "0", "1")).reason, oom);
  EXPECT_EQ(parse_run_report(oom_stream(9, "0", "1", false)).reason, oom);  // no error record
  // A SIGKILL the cgroup did not count, another signal, or no cgroup: the signal stays.
  EXPECT_EQ(parse_run_report(oom_stream(9, "1", "1")).reason,
            "guest error in workload: rep 0: /workloads/fault killed by signal 9");
  EXPECT_EQ(parse_run_report(oom_stream(9, "", "")).reason,
            "guest error in workload: rep 0: /workloads/fault killed by signal 9");
  EXPECT_EQ(parse_run_report(oom_stream(6, "0", "1", false)).reason,
            "rep 0: workload fault killed by signal 6");
  EXPECT_EQ(oom_kill_reason(SIGKILL, {}, {{"memcg.events.oom_kill", 2}, {"memcg.events.oom", 2}}),
            "OOM-killed in its memory cgroup (memory.events: oom 2, oom_kill 2, max 0)");
}

TEST(OomReason, AgentWordsItsErrorTheSameWay) {
  struct memcg_events before, after;
  memcg_events_parse("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n", &before);
  memcg_events_parse("low 0\nhigh 12\nmax 57\noom 3\noom_kill 1\noom_group_kill 0\n", &after);
  EXPECT_EQ(after.max, 57);
  EXPECT_EQ(after.oom, 3);
  EXPECT_EQ(after.oom_kill, 1);
  char why[160];
  workload_kill_reason(SIGKILL, &before, &after, why, sizeof why);
  EXPECT_STREQ(why, "OOM-killed in its memory cgroup (memory.events: oom 3, oom_kill 1, max 57)");
  workload_kill_reason(SIGKILL, &after, &after, why, sizeof why);  // no new kill
  EXPECT_STREQ(why, "killed by signal 9");
  workload_kill_reason(SIGKILL, nullptr, nullptr, why, sizeof why);  // no cgroup
  EXPECT_STREQ(why, "killed by signal 9");
  workload_kill_reason(SIGSEGV, &before, &after, why, sizeof why);
  EXPECT_STREQ(why, "killed by signal 11");
  struct memcg_events none;
  memcg_events_parse("", &none);
  EXPECT_EQ(none.oom_kill, -1);
}

}  // namespace
}  // namespace foliolab
