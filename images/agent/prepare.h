/* foliolab guest agent: putting the machine into the state a job asks for (docs/guest-protocol.md
 * "Machine state"): swap on zram or a disk, zswap, the workload's memory cgroup, and the prepare
 * steps (fragmentation, reclaim). Each step emits a `prepare` record with what it reached; one
 * that cannot do what it was asked fails the run (stage `prepare`) naming the state it reached.
 * Uses state, sysfs, record and base; called by agent. */
#ifndef FOLIOLAB_AGENT_PREPARE_H
#define FOLIOLAB_AGENT_PREPARE_H

#include "job.h"

/* Swap, zswap and the cgroup, in that order, after the knobs are set. */
void state_setup(const struct job *job);

/* The prepare steps in job order, after the setup commands and before the first rep. A fragment
 * step leaves a holder process behind that keeps the memory it fragmented until state_finish. */
void state_prepare(const struct job *job);

/* Ends the holders (before `done`). */
void state_finish(void);

/* In the workload's child before its exec: enters the job's memory cgroup (no-op without one). */
int cgroup_join(const struct job *job);

#endif
