/* foliolab guest agent: the machine-state lines of the job file (docs/guest-protocol.md
 * "Machine state") and the word rule the job file's names follow. Libc only; job.c hands it the
 * lines it does not know itself. */
#ifndef FOLIOLAB_AGENT_JOB_STATE_H
#define FOLIOLAB_AGENT_JOB_STATE_H

#include <stddef.h>

/* The machine's state a job asks for (prepare.c puts the machine into it). */
enum swap_type { SWAP_NONE, SWAP_ZRAM, SWAP_DISK };
#define MAX_CGROUP_LIMITS 16
#define MAX_PREPARE 16
#define MAX_MONITOR 16
struct limit {
  char *file;  /* memory.max, memory.high, ... (checked: memory.<word>) */
  char *value; /* bytes or "max" */
};
struct prep {
  int reclaim;                /* 1: `prepare reclaim <bytes>`; 0: fragment */
  char *method;               /* fragment: "thpscale", "unusable" or "churn" */
  long order;                 /* unusable: the order whose index is the target */
  double target;              /* unusable: the target unusable free space index, (0, 1] */
  unsigned long long seed;    /* which half of each block is freed */
  int pin;                    /* mlock what is kept, vm.compact_unevictable_allowed=0 */
  unsigned long long reserve; /* bytes left unfilled (0: MemTotal / 16) */
  unsigned long long bytes;   /* reclaim: bytes asked of memory.reclaim */
  unsigned long long churn_bytes, file_bytes; /* churn: the files in all, each file */
  long passes;                                /* churn: random reads over all files first */
  int background;                             /* churn: the reads go on through the reps */
};
struct machine_state {
  enum swap_type swap;
  unsigned long long swap_bytes;
  char *swap_arg; /* zram: compressor or "-"; disk: the device's serial */
  char *zswap;    /* compressor or "-"; NULL: zswap stays off */
  struct limit cgroup[MAX_CGROUP_LIMITS];
  size_t ncgroup;
  struct prep prep[MAX_PREPARE];
  size_t nprep;
  long monitor_ms; /* 0: no monitor */
  char *monitor[MAX_MONITOR];
  size_t nmonitor;
};

/* `swap`, `zswap`, `cgroup`, `prepare`, `monitor` and `monitor_counter` lines: 1 when kw is none
 * of them, 0 when parsed, -1 with *why set (a static or leaked string: PID 1 lives forever). */
int job_state_line(struct machine_state *m, const char *kw, char *rest, const char **why);
/* The lines that go together (a monitor with counters, ...): 0, or -1 with *why. */
int job_state_check(const struct machine_state *m, const char **why);

/* 1 when `s` is a non-empty word of [A-Za-z0-9_.-]. */
int job_is_word(const char *s);

#endif
