/* foliolab guest agent: memory.events and the reason of a workload's kill (memcg_events.h). */
#include "memcg_events.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

void memcg_events_parse(const char *text, struct memcg_events *e) {
  e->max = e->oom = e->oom_kill = -1;
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
    char name[32];
    long long v;
    if (sscanf(l, "%31s %lld", name, &v) != 2) continue;
    if (!strcmp(name, "max")) e->max = v;
    if (!strcmp(name, "oom")) e->oom = v;
    if (!strcmp(name, "oom_kill")) e->oom_kill = v;
  }
}

void workload_kill_reason(int sig, const struct memcg_events *before,
                          const struct memcg_events *after, char *buf, size_t len) {
  const long long was = before && before->oom_kill > 0 ? before->oom_kill : 0;
  if (sig == SIGKILL && after && after->oom_kill > was) {
    snprintf(buf, len,
             "OOM-killed in its memory cgroup (memory.events: oom %lld, oom_kill %lld, max %lld)",
             after->oom, after->oom_kill, after->max);
    return;
  }
  snprintf(buf, len, "killed by signal %d", sig);
}
