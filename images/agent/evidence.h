/* foliolab guest agent: kernel evidence (docs/evidence.md, docs/guest-protocol.md `evidence` and
 * `function-profile` records). Before rep 0, evidence_setup mounts tracefs, checks every event
 * against available_events and every function against available_filter_functions (an unknown
 * one fails the run naming it, the kernel release and a did-you-mean) and makes the kprobe
 * events. Each rep: evidence_rep_begin(pid) while the workload's process waits before its
 * execv (set_event_pid with event-fork, so only the workload and its children count; a hist
 * trigger per event; the function profiler on), evidence_profile_stop() once it has been waited
 * for, and evidence_rep_end(rep) after the counters: the counts as an `evidence` record, the
 * triggers removed. Uses base, job_evidence and record; called by agent. */
#ifndef FOLIOLAB_AGENT_EVIDENCE_H
#define FOLIOLAB_AGENT_EVIDENCE_H

#include "job_evidence.h"

void evidence_setup(const struct evidence *e);
void evidence_rep_begin(int pid);
void evidence_profile_stop(void);
void evidence_rep_end(long rep);

#endif
