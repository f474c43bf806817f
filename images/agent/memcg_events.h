/* foliolab guest agent: the workload cgroup's memory.events and why a workload died of a
 * signal (pure, libc only: compiled into the host's unit tests too,
 * harness/protocol/oom_reason_test.cc). */
#ifndef FOLIOLAB_AGENT_MEMCG_EVENTS_H
#define FOLIOLAB_AGENT_MEMCG_EVENTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The counts of memory.events that name an OOM kill; -1: the file had no such line. */
struct memcg_events {
  long long max, oom, oom_kill;
};

/* Reads memory.events' text ("low 0\nhigh 0\nmax 57\noom 3\noom_kill 1\n..."); NULL: none. */
void memcg_events_parse(const char *text, struct memcg_events *e);

/* Why a workload died of signal `sig`, into buf: "OOM-killed in its memory cgroup
 * (memory.events: oom 3, oom_kill 1, max 57)" when sig is SIGKILL and oom_kill rose from
 * `before` to `after` (either NULL: no cgroup), else "killed by signal <sig>". */
void workload_kill_reason(int sig, const struct memcg_events *before,
                          const struct memcg_events *after, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
