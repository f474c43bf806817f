/* foliolab guest agent: the folio census of processes at the workload's peak (docs/evidence.md
 * "Folio census"; the `census` record of docs/guest-protocol.md). Walks /proc/PID/smaps for the
 * mappings and their PMD-mapped kB, census.h for the folios behind each mapping (through
 * /proc/PID/pagemap and /proc/kpageflags, which need root: the agent is), and emits one record.
 * Uses census, record and base. */
#ifndef FOLIOLAB_AGENT_CENSUS_PROC_H
#define FOLIOLAB_AGENT_CENSUS_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* The environment variables naming the workload's ends of the peak channel (two pipes): the
 * workload writes "peak [pid ...]\n" to the first at its peak and waits for one byte on the
 * second. */
#define CENSUS_FD_ENV "FOLIOLAB_CENSUS_FD"
#define CENSUS_ACK_FD_ENV "FOLIOLAB_CENSUS_ACK_FD"
#define CENSUS_MAX_PIDS 16

/* The census of pids[0..npids) (together) as one `census` record for rep; `index` counts the
 * censuses of the rep from 0. */
void census_emit(long rep, long index, const pid_t *pids, size_t npids);

/* One peak message ("peak" then pids, blank-separated; none: the sender `self`) into pids: the
 * number of pids, or -1 when the message is malformed. */
int census_parse_peak(const char *msg, pid_t self, pid_t *pids, size_t max);

#endif
