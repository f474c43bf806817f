/* foliolab guest agent: /init (PID 1) of the guest initramfs.
 *
 * Flow (docs/guest-protocol.md): mount pseudo filesystems (debugfs too, when the kernel has
 * it), open the results port, read the job, emit hello, enter the Debian root filesystem when
 * the job names one (rootfs.h), knobs(initial), one knob-set per
 * knob/sysctl line, knobs(final), the machine's state (swap, zswap, cgroup: prepare.h), the
 * setup commands, the prepare steps, the evidence's checks (evidence.h), then per rep
 * state(before), counters(before), run the workload (sampled by the monitor; its evidence
 * counted), counters(after), state(after), evidence, workload, stdout, monitor
 * (warm-up reps first, marked; with repeat_ci until the stopping rule says, then repeat-stop);
 * finally done, sync and power off. Any fatal problem: error, done status=failed, power off.
 *
 * PID 1 must never exit (the kernel panics): every path ends in power_off(), which only
 * returns into an endless pause() if reboot() itself fails. There is no guest watchdog: the
 * host kills QEMU at its deadline.
 *
 * Top layer (main and the run loop); it calls base, record, job, sysfs, state, prepare,
 * evidence and repeat_rule, and nothing calls it (the layers are listed in base.h).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "census_proc.h"
#include "evidence.h"
#include "job.h"
#include "memcg_events.h"
#include "prepare.h"
#include "record.h"
#include "repeat_rule.h"
#include "rootfs.h"
#include "state.h"
#include "sysfs.h"

#define AGENT_VERSION "1.4"
#define PORT_TIMEOUT_MS 30000    /* TCG guests are slow to probe virtio-serial */
#define MONITOR_MAX_SAMPLES 2000 /* a rep's monitor samples (model/machine_state.h) */

/* ---------------- early setup ---------------- */

/* mkdir + mount; EBUSY (already mounted, e.g. devtmpfs with CONFIG_DEVTMPFS_MOUNT) is fine. */
static void mount_fs(const char *type, const char *target, const char *data) {
  if (mkdir(target, 0755) && errno != EEXIST) log_msg("mkdir %s: %s", target, strerror(errno));
  if (mount(type, target, type, MS_NOSUID, data) && errno != EBUSY)
    log_msg("mount %s on %s: %s", type, target, strerror(errno));
}

/* Kernel quirk: without /dev/console in the initramfs, PID 1 starts with fds 0-2 closed;
 * once devtmpfs is mounted, point them at /dev/console. Children inherit fd 2 (stderr). */
static void setup_console(void) {
  int fd = open("/dev/console", O_RDWR | O_NOCTTY);
  if (fd < 0) fd = open("/dev/null", O_RDWR); /* keep 0-2 occupied: pipes must not land there */
  if (fd < 0) return;
  for (int i = 0; i < 3; i++)
    if (fd != i) dup2(fd, i);
  if (fd > 2) close(fd);
}

static void setup(void) {
  mount_fs("devtmpfs", "/dev", NULL);
  if (host_results_fd() < 0) /* a host's /dev/console is the host's own */
    setup_console();
  mount_fs("proc", "/proc", NULL);
  mount_fs("sysfs", "/sys", NULL);
  /* The mm selftests (kselftest-mm) use debugfs: split_huge_pages, gup_test. sysfs has the
   * mount point only when the kernel has CONFIG_DEBUG_FS. */
  if (access("/sys/kernel/debug", F_OK) == 0) mount_fs("debugfs", "/sys/kernel/debug", NULL);
  mount_fs("tmpfs", "/tmp", "mode=1777");
  /* cgroup v2 (CONFIG_CGROUPS): workloads that confine themselves (memory.max) use it. */
  if (access("/sys/fs/cgroup", F_OK) == 0) mount_fs("cgroup2", "/sys/fs/cgroup", NULL);
  log_msg("agent %s on kernel %s", AGENT_VERSION, kernel_release());
}

/* ---------------- hello ---------------- */

static unsigned long long meminfo_kb(const char *field) {
  struct sb f = {0};
  unsigned long long v = 0;
  size_t n = strlen(field);
  if (read_file("/proc/meminfo", &f) == 0)
    for (char *l = f.p; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
      if (!strncmp(l, field, n) && l[n] == ':') v = strtoull(l + n + 1, NULL, 10);
  sb_free(&f);
  return v;
}

static void emit_hello(const struct job *job) {
  struct utsname u;
  struct sb p = {0}, cmdline = {0};
  memset(&u, 0, sizeof u);
  uname(&u);
  read_file("/proc/cmdline", &cmdline);
  strip_newlines(&cmdline);
  kv_add(&p, "agent_version", AGENT_VERSION);
  kv_add(&p, "run_id", job->run_id ? job->run_id : "");
  kv_add(&p, "release", u.release);
  kv_add(&p, "version", u.version);
  kv_add(&p, "machine", u.machine);
  kv_addf(&p, "page_size", "%ld", sysconf(_SC_PAGESIZE));
  kv_addf(&p, "nr_cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
  kv_addf(&p, "mem_total_kb", "%llu", meminfo_kb("MemTotal"));
  kv_add(&p, "cmdline", cmdline.p ? cmdline.p : "");
  record_emit_sb("hello", &p);
  sb_free(&p);
  sb_free(&cmdline);
}

/* ---------------- workload ---------------- */

struct wl_result {
  int status; /* waitpid status */
  long long wall_ns;
  long rep;
  int census_fd, ack_fd; /* the agent's ends of the peak channel (job `census 1`), or -1 */
  long ncensus;          /* censuses taken this rep */
  long long census_ns;   /* time spent taking them: not the workload's */
  struct sb out;
  int truncated;     /* more than MAX_PAYLOAD bytes on stdout */
  struct sb samples; /* the monitor's: "s<i>\t<t_ms> <value>...\n" lines */
  long nsamples;
  struct memcg_events events; /* the workload cgroup's memory.events before the rep */
};

/* The workload cgroup's memory.events (a job with `cgroup` lines): 0, or -1 without one. */
static int read_memcg_events(const struct job *job, struct memcg_events *e) {
  struct sb f = {0};
  const int got = job->state.ncgroup && !read_file(CGROUP_DIR "/memory.events", &f);
  if (got) memcg_events_parse(f.p, e);
  sb_free(&f);
  return got ? 0 : -1;
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Child side: stdout = pipe, stdin = /dev/null, stderr stays the console. PR_SET_THP_DISABLE
 * is kept across execve (MMF_DISABLE_THP is in MMF_INIT_MASK), so setting it here covers the
 * workload. */
static _Noreturn void exec_child(const struct job *job, int out_fd, int gate, const int census[2]) {
  char num[16], go;
  for (int i = 0; i < 2 && census[0] >= 0; i++) {
    snprintf(num, sizeof num, "%d", census[i]);
    if (fcntl(census[i], F_SETFD, 0) < 0 || setenv(i ? CENSUS_ACK_FD_ENV : CENSUS_FD_ENV, num, 1))
      _exit(126);
  }
  if (gate >= 0 && read(gate, &go, 1) != 1) _exit(126); /* the agent set up its evidence */
  int nul = open("/dev/null", O_RDONLY);
  if (nul >= 0 && nul != 0) dup2(nul, 0), close(nul);
  if (out_fd == 1 ? fcntl(1, F_SETFD, 0) < 0 : dup2(out_fd, 1) < 0) _exit(126);
  if (cgroup_join(job)) {
    log_msg("entering %s: %s", CGROUP_DIR, strerror(errno));
    _exit(126);
  }
  if (job->thp_disable && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)) {
    log_msg("prctl(PR_SET_THP_DISABLE): %s", strerror(errno));
    _exit(126);
  }
  execv(job->argv[0], job->argv);
  log_msg("execv %s: %s", job->argv[0], strerror(errno));
  _exit(127);
}

/* One monitor sample: the time since the rep started and each counter (-1: unreadable). */
static void sample(const struct job *job, struct wl_result *r, long long t0) {
  if (r->nsamples >= MONITOR_MAX_SAMPLES) return;
  char key[24];
  struct sb line = {0};
  sb_printf(&line, "%lld", (now_ns() - t0) / 1000000);
  for (size_t i = 0; i < job->state.nmonitor; i++) {
    long long v = -1;
    counter_value(job->state.monitor[i], &v);
    sb_printf(&line, " %lld", v);
  }
  snprintf(key, sizeof key, "s%ld", r->nsamples++);
  kv_add(&r->samples, key, line.p);
  sb_free(&line);
}

/* A message on the peak channel: the census of the processes it names (the sender when none),
 * then one byte back, which lets the workload go on. End of file: the channel is closed. */
static void answer_peak(struct wl_result *r, pid_t pid) {
  char msg[256];
  pid_t pids[CENSUS_MAX_PIDS];
  ssize_t n = read(r->census_fd, msg, sizeof msg - 1);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    close(r->census_fd);
    close(r->ack_fd);
    r->census_fd = r->ack_fd = -1;
    return;
  }
  msg[n] = '\0';
  const long long t = now_ns();
  int np = census_parse_peak(msg, pid, pids, CENSUS_MAX_PIDS);
  if (np < 0)
    log_msg("census: malformed peak message '%.60s'", msg);
  else
    census_emit(r->rep, r->ncensus++, pids, (size_t)np);
  r->census_ns += now_ns() - t;
  if (write(r->ack_fd, "k", 1) != 1) log_msg("census: answer: %s", strerror(errno));
}

/* The workload's stdout until EOF; with a monitor, a sample every period meanwhile; with a
 * census, the peak channel's messages. */
static void drain(const struct job *job, int fd, struct wl_result *r, long long t0, pid_t pid) {
  char buf[65536];
  const long period = job->state.monitor_ms;
  long long next = t0 + period * 1000000LL;
  if (period) sample(job, r, t0);
  for (;;) {
    if (period || r->census_fd >= 0) {
      long long wait = period ? (next - now_ns()) / 1000000 : -1;
      struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = r->census_fd, .events = POLLIN}};
      int ready = poll(pfd, 2, !period ? -1 : wait > 0 ? (int)wait : 0);
      if (ready < 0 && errno != EINTR) return;
      if (period && now_ns() >= next) {
        sample(job, r, t0);
        next += period * 1000000LL;
      }
      if (ready > 0 && pfd[1].revents) answer_peak(r, pid);
      if (ready <= 0 || !pfd[0].revents) continue;
    }
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t room = MAX_PAYLOAD - r->out.len;
    if ((size_t)n > room) r->truncated = 1;
    sb_append(&r->out, buf, (size_t)n > room ? room : (size_t)n);
  }
  if (period) sample(job, r, t0); /* the end of the rep */
}

/* With evidence the child waits on a gate pipe before its execv until the agent has pointed
 * set_event_pid at it and set its triggers (evidence.h); wall_ns then starts at the release.
 * With a census (job `census 1`) the workload gets two pipes, named by CENSUS_FD_ENV and
 * CENSUS_ACK_FD_ENV, to say when it is at its peak and hear back (census_proc.h; the small kernel
 * has no sockets). wall_ns leaves out the time the censuses took. */
static void run_workload(const struct job *job, struct wl_result *r) {
  int pfd[2], gate[2] = {-1, -1}, peak[2] = {-1, -1}, ack[2] = {-1, -1};
  const int traced = evidence_wanted(&job->evidence);
  if (pipe2(pfd, O_CLOEXEC) || (traced && pipe2(gate, O_CLOEXEC)))
    fail_run("workload", "pipe: %s", strerror(errno));
  if (job->census && (pipe2(peak, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)))
    fail_run("workload", "pipe: %s", strerror(errno));
  const int child[2] = {peak[1], ack[0]};
  r->census_fd = peak[0];
  r->ack_fd = ack[1];
  if (read_memcg_events(job, &r->events)) r->events.oom_kill = -1;
  long long t0 = now_ns();
  pid_t pid = fork();
  if (pid < 0) fail_run("workload", "fork: %s", strerror(errno));
  if (pid == 0) exec_child(job, pfd[1], gate[0], child);
  close(pfd[1]);
  if (job->census) close(peak[1]), close(ack[0]);
  if (traced) {
    close(gate[0]);
    evidence_rep_begin(pid);
    t0 = now_ns();
    if (write(gate[1], "g", 1) != 1) fail_run("workload", "gate: %s", strerror(errno));
    close(gate[1]);
  }
  drain(job, pfd[0], r, t0, pid);
  close(pfd[0]);
  if (r->census_fd >= 0) close(r->census_fd), close(r->ack_fd);
  while (waitpid(pid, &r->status, 0) < 0)
    if (errno != EINTR) fail_run("workload", "waitpid: %s", strerror(errno));
  r->wall_ns = now_ns() - t0 - r->census_ns;
  evidence_profile_stop();
}

static void emit_workload(const struct job *job, long rep, int warmup, const struct wl_result *r) {
  struct sb p = {0};
  int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
  int code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
  kv_addf(&p, "rep", "%ld", rep);
  kv_add(&p, "name", job->workload);
  kv_addf(&p, "exit_status", "%d", code);
  kv_addf(&p, "signal", "%d", sig);
  kv_addf(&p, "wall_ns", "%lld", r->wall_ns);
  if (warmup) kv_add(&p, "warmup", "1");
  record_emit_sb("workload", &p);
  record_emit_sb("stdout", &r->out);
  if (job->state.monitor_ms) { /* after stdout, which belongs to the workload record */
    p.len = 0;
    kv_addf(&p, "rep", "%ld", rep);
    kv_addf(&p, "period_ms", "%ld", job->state.monitor_ms);
    struct sb names = {0};
    for (size_t i = 0; i < job->state.nmonitor; i++)
      sb_printf(&names, "%s%s", i ? " " : "", job->state.monitor[i]);
    kv_add(&p, "counters", names.p);
    if (r->samples.p) sb_append(&p, r->samples.p, r->samples.len);
    record_emit_sb("monitor", &p);
    sb_free(&names);
  }
  sb_free(&p);
  log_msg("rep %ld: %s exit_status=%d signal=%d wall_ms=%lld", rep, job->workload, code, sig,
          r->wall_ns / 1000000);
  if (sig) { /* an OOM kill in the workload cgroup says so, with memory.events' counts */
    struct memcg_events after;
    char why[160];
    const int cgroup = !read_memcg_events(job, &after);
    workload_kill_reason(sig, cgroup ? &r->events : NULL, cgroup ? &after : NULL, why, sizeof why);
    fail_run("workload", "rep %ld: %s %s", rep, job->argv[0], why);
  }
  if (code && !job->nonzero_exit_ok)
    fail_run("workload", "rep %ld: %s exited with status %d", rep, job->argv[0], code);
  if (r->truncated)
    fail_run("workload", "rep %ld: %s wrote more than %zu bytes on stdout", rep, job->argv[0],
             MAX_PAYLOAD);
}

/* knobs(initial), one knob-set per knob/sysctl line in file order, knobs(final). */
static void apply_steps(const struct job *job) {
  knobs_dump("initial");
  for (size_t i = 0; i < job->nsteps; i++) {
    const struct step *st = &job->steps[i];
    if (st->kind == STEP_KNOB)
      knob_set(st->path, st->value);
    else
      sysctl_set(st->path, st->value);
  }
  knobs_dump("final");
}

/* ---------------- setup commands ---------------- */

#define SETUP_LOG "/tmp/foliolab-setup.log"
#define SETUP_TAIL 1500 /* bytes of its output in the error message */

/* One setup command, stdout and stderr to SETUP_LOG (a file, not a pipe: a server it starts may
 * keep the descriptors open), stdin /dev/null, PATH looked up; fatal unless it exits 0. */
static void run_setup_command(char **argv, size_t index) {
  int log = open(SETUP_LOG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) fail_run("setup", "open %s: %s", SETUP_LOG, strerror(errno));
  pid_t pid = fork();
  if (pid < 0) fail_run("setup", "fork: %s", strerror(errno));
  if (pid == 0) {
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0 && nul != 0) dup2(nul, 0), close(nul);
    if (dup2(log, 1) < 0 || dup2(log, 2) < 0) _exit(126);
    execvp(argv[0], argv);
    fprintf(stderr, "execvp %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(log);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail_run("setup", "waitpid: %s", strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  struct sb out = {0};
  read_file(SETUP_LOG, &out);
  size_t skip = out.len > SETUP_TAIL ? out.len - SETUP_TAIL : 0;
  if (WIFSIGNALED(status))
    fail_run("setup", "setup[%zu] %s: killed by signal %d; its output ends: %s", index, argv[0],
             WTERMSIG(status), out.p ? out.p + skip : "");
  fail_run("setup", "setup[%zu] %s: exited with status %d; its output ends: %s", index, argv[0],
           WEXITSTATUS(status), out.p ? out.p + skip : "");
}

/* `setup` commands in file order, once, after the knobs and before the first rep. */
static void run_setup(const struct job *job) {
  for (size_t i = 0; i < job->nsetup; i++) {
    log_msg("setup[%zu]: %s", i, job->setup[i][0] ? job->setup[i][0] : "(empty)");
    if (!job->setup[i][0] || !*job->setup[i][0]) fail_run("setup", "setup[%zu]: empty command", i);
    run_setup_command(job->setup[i], i);
  }
}

/* ---------------- adaptive repetitions ---------------- */

/* The watched metrics' values so far, one series per repeat_metric line. */
struct watch {
  double *x[RR_MAX_METRICS];
  struct rr_series s[RR_MAX_METRICS];
};

static void watch_init(const struct job *job, struct watch *w) {
  for (size_t i = 0; i < job->nrepeat_metrics; i++) {
    w->x[i] = xmalloc((size_t)job->repeat_max * sizeof(double));
    w->s[i] = (struct rr_series){w->x[i], 0};
  }
}

/* A metric that is null or missing in this rep's JSON line adds no value: its series then
 * lacks a rep and the rule never counts it as reached. */
static void watch_add(const struct job *job, struct watch *w, const struct sb *out) {
  for (size_t i = 0; i < job->nrepeat_metrics && out->p; i++) {
    double v;
    if (rr_json_number(out->p, out->len, job->repeat_metrics[i], &v)) w->x[i][w->s[i].n++] = v;
  }
}

static void emit_repeat_stop(const struct job *job, const struct watch *w, long n,
                             enum rr_stop stop) {
  struct sb p = {0}, key = {0};
  kv_add(&p, "reason", rr_stop_name(stop));
  kv_addf(&p, "n", "%ld", n);
  kv_addf(&p, "warmup", "%ld", job->warmup);
  kv_addf(&p, "target", "%.17g", job->repeat_ci);
  for (size_t i = 0; i < job->nrepeat_metrics; i++) {
    double hw = w->s[i].n == n ? rr_rel_half_width(w->x[i], n) : -1;
    key.len = 0;
    sb_printf(&key, "half_width.%s", job->repeat_metrics[i]);
    if (hw >= 0 && hw < 1e300)
      kv_addf(&p, key.p, "%.17g", hw);
    else
      kv_add(&p, key.p, "none");
  }
  record_emit_sb("repeat-stop", &p);
  log_msg("repeat: %s after %ld reps (target +-%g of the mean)", rr_stop_name(stop), n,
          job->repeat_ci);
  sb_free(&p);
  sb_free(&key);
}

/* Warm-up reps first, then measured ones: `repeat` of them, or with repeat_ci until the rule
 * (repeat_rule.h) stops, which the repeat-stop record reports. */
static void run_reps(const struct job *job) {
  if (!job->workload) return;
  if (access(job->argv[0], X_OK)) fail_run("workload", "%s: %s", job->argv[0], strerror(errno));
  struct watch w;
  watch_init(job, &w);
  for (long rep = 0;; rep++) {
    struct wl_result r = {.rep = rep};
    const int warm = rep < job->warmup;
    const long n = rep - job->warmup + 1; /* measured reps including this one */
    state_snapshot(rep, "before", job->state.ncgroup > 0);
    counters_snapshot(rep, "before");
    run_workload(job, &r);
    counters_snapshot(rep, "after");
    state_snapshot(rep, "after", job->state.ncgroup > 0);
    evidence_rep_end(rep);
    emit_workload(job, rep, warm, &r);
    if (!warm && job->repeat_ci > 0) watch_add(job, &w, &r.out);
    sb_free(&r.out);
    sb_free(&r.samples);
    if (warm) continue;
    if (job->repeat_ci <= 0) {
      if (n >= job->repeat) return;
      continue;
    }
    enum rr_stop stop =
        rr_decide(n, job->repeat, job->repeat_max, job->repeat_ci, w.s, job->nrepeat_metrics);
    if (stop != RR_CONTINUE) {
      emit_repeat_stop(job, &w, n, stop);
      return;
    }
  }
}

int main(void) {
  setup();
  if (port_open(PORT_TIMEOUT_MS)) power_off(); /* nowhere to report; the host sees no records */
  struct job job;
  char err[512];
  int jrc = job_load(&job, err, sizeof err);
  emit_hello(&job);
  if (jrc) fail_run("job", "%s", err);
  log_msg("job %s: %zu knob/sysctl lines, workload %s x%ld..%ld (+%ld warm-up)", job.run_id,
          job.nsteps, job.workload ? job.workload : "(none)", job.repeat,
          job.repeat_max ? job.repeat_max : job.repeat, job.warmup);
  if (job.rootfs) rootfs_enter(job.rootfs);
  apply_steps(&job);
  state_setup(&job);
  run_setup(&job);
  state_prepare(&job);
  evidence_setup(&job.evidence);
  run_reps(&job);
  state_finish();
  emit_done("ok");
  power_off();
}
