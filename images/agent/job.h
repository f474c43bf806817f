/* foliolab guest agent: the job file (docs/guest-protocol.md "Job file"). Uses base,
 * job_state (the machine-state lines), job_evidence (the evidence lines) and repeat_rule (for
 * RR_MAX_METRICS). */
#ifndef FOLIOLAB_AGENT_JOB_H
#define FOLIOLAB_AGENT_JOB_H

#include <stddef.h>

#include "job_evidence.h"
#include "job_state.h"
#include "repeat_rule.h"

#define JOB_PATH "/job/job.txt"
#define JOB_MAGIC "foliolab-job 1"
#define WORKLOAD_DIR "/workloads"

enum step_kind { STEP_KNOB, STEP_SYSCTL };

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
  /* census 1: a folio census (census_proc.h) whenever the workload says it is at its peak */
  int census;
  /* `setup <n> <token>` lines: commands run once before the reps, each a NULL-terminated
   * argv (issue 20) */
  char ***setup;
  size_t nsetup;
  struct machine_state state;
  struct evidence evidence; /* `event`, `kprobe`, `function_profile` lines */
};

/* Parses text (len bytes). Returns 0, or -1 with a message in err. */
int job_parse(const char *text, size_t len, struct job *job, char *err, size_t errlen);

/* Reads and parses JOB_PATH. Returns 0 with *job filled, or -1 with err set and *job at least
 * holding run_id "" (the caller reports after hello). */
int job_load(struct job *job, char *err, size_t errlen);

#endif
