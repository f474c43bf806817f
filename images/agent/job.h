/* foliolab guest agent: the job file (docs/guest-protocol.md "Job file"). Uses base and
 * repeat_rule (for RR_MAX_METRICS). */
#ifndef FOLIOLAB_AGENT_JOB_H
#define FOLIOLAB_AGENT_JOB_H

#include <stddef.h>

#include "repeat_rule.h"

#define JOB_PATH "/job/job.txt"
#define JOB_MAGIC "foliolab-job 1"
#define WORKLOAD_DIR "/workloads"

enum step_kind { STEP_KNOB, STEP_SYSCTL };

/* The machine's state (docs/guest-protocol.md "Machine state"; job_state.c parses it). */
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
struct step {
  enum step_kind kind;
  char *path;  /* relative to the THP or sysctl tree, validated: no "..", no leading '/' */
  char *value; /* rest of the line, may hold spaces */
};
struct job {
  char *run_id;     /* "" when absent */
  long repeat;      /* 1 when absent; the minimum when repeat_ci is given */
  long repeat_max;  /* repeat_ci: at most this many measured reps (>= repeat) */
  double repeat_ci; /* > 0: adaptive (repeat_rule.h): the target half-width over |mean| */
  const char *repeat_metrics[RR_MAX_METRICS]; /* repeat_metric lines, the metrics watched */
  size_t nrepeat_metrics;
  long warmup;        /* reps run first, reported with `warmup 1` and not fed to the rule */
  char *workload;     /* NULL when absent: no reps are run */
  char *exec;         /* `exec` path, or NULL: argv[0] is then WORKLOAD_DIR/<workload> */
  char *rootfs;       /* `rootfs <device>`: the Debian root filesystem to enter, or NULL */
  char **argv;        /* argv for execv: [0] = path, then "key=value"..., then argv tokens, NULL */
  size_t nargs;       /* arg + argv entries after argv[0] */
  struct step *steps; /* knob and sysctl lines in file order */
  size_t nsteps;
  int thp_disable; /* prctl_thp_disable 1 */
  /* nonzero_exit_ok 1: a non-zero exit status does not end the run (a TAP test program
   * exits 1 when a test failed; the host judges its output) */
  int nonzero_exit_ok;
  /* `setup <n> <token>` lines: commands run once before the reps, each a NULL-terminated
   * argv (issue 20) */
  char ***setup;
  size_t nsetup;
  struct machine_state state;
};

/* 1 when `s` is a non-empty word of [A-Za-z0-9_.-]. */
int job_is_word(const char *s);

/* Parses text (len bytes). Returns 0, or -1 with a message in err. */
int job_parse(const char *text, size_t len, struct job *job, char *err, size_t errlen);

/* Reads and parses JOB_PATH. Returns 0 with *job filled, or -1 with err set and *job at least
 * holding run_id "" (the caller reports after hello). */
int job_load(struct job *job, char *err, size_t errlen);

#endif
