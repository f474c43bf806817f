/* foliolab guest agent, bottom layer: console log, power-off, host mode, string buffers and
 * whole-file reads. Calls nothing else in the agent.
 *
 * The agent is /init (PID 1) of the guest initramfs. It implements the guest side of
 * docs/guest-protocol.md (contract version 1). Build: every .c file in images/agent/,
 * static, libc only, e.g. `gcc -static -O2 -Wall -Wextra -Werror -o agent <those files>`
 * (or aarch64-linux-gnu-gcc). Layers, each calling only the ones below it:
 *   repeat_rule (pure: the stopping rule of adaptive reps, libc only)
 *   job_state (the job file's machine-state lines, libc only)
 *   job_evidence (the job file's evidence lines, libc only)
 *   base  <  record  <  sysfs, job, rootfs, evidence  <  agent (main and the run loop)
 */
#ifndef FOLIOLAB_AGENT_BASE_H
#define FOLIOLAB_AGENT_BASE_H

#include <stdarg.h>
#include <stddef.h>

#define MAX_PAYLOAD ((size_t)16 << 20) /* protocol limit for one record payload */

/* ---- console and power-off ---- */

/* One line to /dev/console (fd 2 once the console is set up), prefixed "foliolab-agent:". */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Ends the guest (sync, reboot(RB_POWER_OFF)); in host mode ends this process instead; on a lab
 * machine (set_lab_machine) runs the hook, then reboots into the machine's own kernel. */
_Noreturn void power_off(void);

/* ---- lab machine mode ----
 * PID 1 of a kernel foliolab kexec'ed on a lab machine (foliolab.report=tcp:... on the command
 * line): the end is a reboot into the machine's own kernel, never a power-off, after `hook`
 * (the record channel's orderly close). */
void set_lab_machine(void (*hook)(void));

/* uname -r, or "unknown", for messages. */
const char *kernel_release(void);

/* ---- host mode ----
 * With FOLIOLAB_RESULTS_FD=<n> in the environment the agent runs on a host, not as a guest's
 * PID 1 (foliolab's host backend: PID 1 of a private PID and mount namespace, chrooted into the
 * run's root): records go to that inherited descriptor instead of the virtio port, fds 0-2 stay
 * as given (not /dev/console, which is the host's), and the end is exit(), never reboot(). */
int host_results_fd(void); /* the descriptor, or -1 when running as a guest */

/* ---- string buffer (never fails: out of memory powers the guest off) ---- */
struct sb {
  char *p; /* always NUL-terminated when non-NULL */
  size_t len, cap;
};
void sb_free(struct sb *b);
void sb_append(struct sb *b, const void *data, size_t n);
void sb_puts(struct sb *b, const char *s);
void sb_vprintf(struct sb *b, const char *fmt, va_list ap);
void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xmalloc(size_t n);
char *xstrdup(const char *s);

/* ---- files ---- */
int read_file(const char *path, struct sb *out); /* 0 or -errno; out is reset first */
void strip_newlines(struct sb *b);               /* drops trailing '\n' characters */

#endif
