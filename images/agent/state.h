/* foliolab guest agent: the machine's memory state as data (docs/guest-protocol.md "Machine
 * state"): buddy free lists, the unusable free space and fragmentation indices the kernel's
 * debugfs extfrag files print (computed here from /proc/buddyinfo with the same formulas, so no
 * debugfs is needed), pagetypeinfo, swap, zram and the workload cgroup; and single counters for
 * the monitor. Uses record and base only. */
#ifndef FOLIOLAB_AGENT_STATE_H
#define FOLIOLAB_AGENT_STATE_H

#include "extfrag.h"

#define MAX_ZONES 8
#define MAX_ORDERS 16
#define CGROUP_DIR "/sys/fs/cgroup/foliolab"

/* /proc/buddyinfo summed over nodes, per zone (and `all` zones as the last row). */
struct buddy {
  char zone[MAX_ZONES + 1][16];
  unsigned long long count[MAX_ZONES + 1][MAX_ORDERS];
  int nzones; /* rows 0..nzones-1; row nzones is the sum, named "all" */
  int norders;
};
int buddy_read(struct buddy *b); /* 0, or -1 when /proc/buddyinfo cannot be read */

/* `state` record for one rep and phase. */
void state_snapshot(long rep, const char *phase, int cgroup);

/* The current value of a monitor counter (vmstat.X, meminfo.X, mthp.<size>.<stat>,
 * memcg.<memory.stat key> or memcg.current); 0, or -1 when it does not exist. */
int counter_value(const char *name, long long *v);

#endif
