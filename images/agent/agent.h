/* foliolab guest agent: shared declarations.
 *
 * The agent is /init (PID 1) of the guest initramfs. It implements the guest side of
 * docs/guest-protocol.md (contract version 1). Build: every .c file in images/agent/,
 * static, libc only, e.g. `gcc -static -O2 -Wall -Wextra -Werror -o agent <those files>`
 * (or aarch64-linux-gnu-gcc).
 */
#ifndef FOLIOLAB_AGENT_H
#define FOLIOLAB_AGENT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_VERSION "1.1"
#define JOB_PATH "/job/job.txt"
#define JOB_MAGIC "foliolab-job 1"
#define WORKLOAD_DIR "/workloads"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define SYSCTL_DIR "/proc/sys"
#define RESULTS_PORT_NAME "org.foliolab.results"
#define MAX_PAYLOAD ((size_t)16 << 20) /* protocol limit for one record payload */

/* ---- string buffer (never fails: out of memory powers the guest off) ---- */
struct sb {
	char *p; /* always NUL-terminated when non-NULL */
	size_t len, cap;
};
void sb_free(struct sb *b);
void sb_append(struct sb *b, const void *data, size_t n);
void sb_puts(struct sb *b, const char *s);
void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xmalloc(size_t n);
char *xstrdup(const char *s);

/* `key\tvalue\n` payload lines. Tabs and newlines inside value become spaces so that a line
 * always parses; keys are produced by the agent and never hold them. */
void kv_add(struct sb *b, const char *key, const char *value);
void kv_addf(struct sb *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- records (record.c) ---- */
uint32_t crc32_ieee(uint32_t crc, const void *data, size_t n); /* zlib crc32() semantics */
int port_open(int timeout_ms);                                 /* 0 when the port is open */
void record_emit(const char *type, const void *payload, size_t len);
void record_emit_sb(const char *type, const struct sb *b);
void emit_verror(const char *stage, const char *fmt, va_list ap);
void emit_error(const char *stage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- host mode ----
 * With FOLIOLAB_RESULTS_FD=<n> in the environment the agent runs on a host, not as a guest's
 * PID 1 (foliolab's host backend: PID 1 of a private PID and mount namespace, chrooted into the
 * run's root): records go to that inherited descriptor instead of the virtio port, fds 0-2 stay
 * as given (not /dev/console, which is the host's), and the end is exit(), never reboot(). */
int host_results_fd(void); /* the descriptor, or -1 when running as a guest */

/* ---- PID-1 plumbing (agent.c) ---- */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void power_off(void);
/* Writes `error` and `done status=failed` (when the port is open), then powers off. */
_Noreturn void fail_run(const char *stage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
extern char g_release[]; /* uname -r, for error messages */

/* ---- job file (job.c) ---- */
enum step_kind { STEP_KNOB, STEP_SYSCTL };
struct step {
	enum step_kind kind;
	char *path;  /* relative to THP_DIR or SYSCTL_DIR, validated: no "..", no leading '/' */
	char *value; /* rest of the line, may hold spaces */
};
struct job {
	char *run_id;   /* "" when absent */
	long repeat;    /* 1 when absent */
	char *workload; /* NULL when absent: no reps are run */
	char *exec;     /* `exec` path, or NULL: argv[0] is then WORKLOAD_DIR/<workload> */
	char **argv;    /* argv for execv: [0] = path, then "key=value"..., then argv tokens, NULL */
	size_t nargs;   /* arg + argv entries after argv[0] */
	struct step *steps; /* knob and sysctl lines in file order */
	size_t nsteps;
	int thp_disable; /* prctl_thp_disable 1 */
	/* nonzero_exit_ok 1: a non-zero exit status does not end the run (a TAP test program
	 * exits 1 when a test failed; the host judges its output) */
	int nonzero_exit_ok;
};
/* Parses text (len bytes). Returns 0, or -1 with a message in err. */
int job_parse(const char *text, size_t len, struct job *job, char *err, size_t errlen);

/* ---- sysfs/procfs (sysfs.c) ---- */
int read_file(const char *path, struct sb *out); /* 0 or -errno; out is reset first */
void strip_newlines(struct sb *b);               /* drops trailing '\n' characters */
void knobs_dump(const char *phase);
int step_apply(const struct step *st); /* 0 ok; -1 after knob-set + error records */
void counters_snapshot(long rep, const char *phase);

#endif
