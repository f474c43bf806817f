/* foliolab guest agent: the churn fragmentation method (docs/guest-protocol.md "Machine state"),
 * mmtests' thpchallenge background in small: files of one size written to the run's ext4
 * scratch disk until they are more than memory, then read at random, so that page cache is
 * reclaimed and refaulted all over memory with the files' inodes and dentries (reclaimable slab)
 * beside it. Uses disk, state and base. */
#ifndef FOLIOLAB_AGENT_CHURN_H
#define FOLIOLAB_AGENT_CHURN_H

#include "job.h"

#define SCRATCH_SERIAL "foliolab-scratch"
#define SCRATCH_DIR "/scratch"

struct churn_result {
  unsigned long long files, written, reads, ms;          /* ms: the writes and the passes */
  unsigned long long cached_kb, slab_kb, slab_before_kb; /* meminfo Cached, Slab */
};

/* Mounts the scratch disk (once), writes step `index`'s files and reads them `passes` times;
 * 0, or -1 with why (of `len` bytes) saying what failed. */
int churn_lay_out(const struct prep *p, int index, struct churn_result *r, char *why, size_t len);

/* The background reads: random files of the step, one after another, until killed. */
void churn_forever(const struct prep *p, int index) __attribute__((noreturn));

#endif
