/* memcg-stress: Usama Arif's "mm: split underused THPs" (v5) experiment: `stress --vm` in a
 * cgroup v2 memory cgroup smaller than what it allocates, with a stride that leaves most of
 * each THP untouched. Without the underused-THP shrinker the worker is OOM-killed; with it,
 * reclaim splits the THPs and frees their zero-filled subpages and stress runs to its end.
 *
 * Needs the guest's Debian root filesystem with Debian's `stress` 1.0.7 (FL_PACKAGES in
 * memcg-stress.def), found on PATH, and cgroup2 with the memory controller on /sys/fs/cgroup.
 *
 * Arguments (key=value):
 *   memory_max=20M   the cgroup's memory.max
 *   swap_max=0       the cgroup's memory.swap.max (skipped when the file does not exist: no
 *                    swap controller; metric swap_max_set says which)
 *   vm_bytes=40M     stress --vm 1 --vm-bytes
 *   vm_stride=50K    stress --vm-stride: one byte written every this many bytes
 *   duration=10      stress --timeout <duration>s
 *   program=stress   the memory hog: stress (Debian's stress 1.0.7) or stress-ng (0.15:
 *                    `stress-ng --vm 1 --vm-bytes N --vm-keep --timeout Ds`, which rewrites
 *                    the whole mapping over and over; it has no stride, so vm_stride given
 *                    with stress-ng is a usage error)
 *
 * Each run: /sys/fs/cgroup/foliolab-<pid> is created (+memory enabled in the root's
 * cgroup.subtree_control first when it is not, and disabled again at the end), memory.max and
 * memory.swap.max are written, and a child moves itself into the cgroup and execs `stress --vm 1
 * --vm-bytes N --vm-stride N --timeout Ds` (stdout and stderr to /tmp/foliolab-stress.log).
 * While it runs, memory.stat's anon and anon_thp are sampled every 100 ms (maxima reported);
 * after it ends: memory.events oom, oom_kill and max, memory.peak (null before Linux 5.19),
 * and the /proc/vmstat thp_underused_split_page delta over the run (null on kernels without
 * the series). survived is 1 when stress exited 0 after the full duration. Being OOM-killed
 * is the measured outcome, not a failure: the program fails only when the cgroup cannot be set
 * up or stress cannot be started. A program still running DURATION + 60 s after the start is
 * killed (survived 0). The cgroup is removed at the end.
 */
#include "common.h"
#include "def_args.h"

#include "app.h"
#include "cgroup.h"

#define STRESS_LOG "/tmp/foliolab-stress.log"
#define SAMPLE_NS ((int64_t)100 * 1000000)
#define KILL_AFTER_S 60 /* past duration: the program is killed */

static struct wl_cg g_cg; /* our cgroup */

static void cleanup(void) { wl_cg_remove(&g_cg); }

static void setup_cgroup(uint64_t memory_max, uint64_t swap_max, int *swap_max_set) {
  wl_cg_create(&g_cg, "foliolab");
  char v[32];
  snprintf(v, sizeof v, "%" PRIu64, memory_max);
  int rc = wl_cg_write(&g_cg, "memory.max", v);
  if (rc) wl_fail("write %s to %s/memory.max: %s", v, g_cg.dir, strerror(-rc));
  snprintf(v, sizeof v, "%" PRIu64, swap_max);
  rc = wl_cg_write(&g_cg, "memory.swap.max", v);
  if (rc && rc != -ENOENT)
    wl_fail("write %s to %s/memory.swap.max: %s", v, g_cg.dir, strerror(-rc));
  *swap_max_set = rc == 0;
}

/* ---------------- the program ---------------- */

struct program {
  const char *name;
  /* Fills argv (at most 15 entries and NULL) from the parameters; strings go into buf. */
  void (*args)(char **argv, char *buf, size_t len, uint64_t vm_bytes, uint64_t vm_stride,
               long duration);
};

static void stress_args(char **argv, char *buf, size_t len, uint64_t vm_bytes, uint64_t vm_stride,
                        long duration) {
  char *bytes = buf, *stride = buf + len / 3, *timeout = buf + 2 * (len / 3);
  snprintf(bytes, len / 3, "%" PRIu64, vm_bytes);
  snprintf(stride, len / 3, "%" PRIu64, vm_stride);
  snprintf(timeout, len / 3, "%lds", duration);
  char *const v[] = {"stress",      "--vm", "1",         "--vm-bytes", bytes,
                     "--vm-stride", stride, "--timeout", timeout,      NULL};
  memcpy(argv, v, sizeof v);
}

static void stress_ng_args(char **argv, char *buf, size_t len, uint64_t vm_bytes,
                           uint64_t vm_stride, long duration) {
  (void)vm_stride;
  char *bytes = buf, *timeout = buf + len / 2;
  snprintf(bytes, len / 2, "%" PRIu64, vm_bytes);
  snprintf(timeout, len / 2, "%lds", duration);
  char *const v[] = {"stress-ng", "--vm",      "1",     "--vm-bytes", bytes,
                     "--vm-keep", "--timeout", timeout, NULL};
  memcpy(argv, v, sizeof v);
}

static const struct program programs[] = {{"stress", stress_args}, {"stress-ng", stress_ng_args}};
static const char *const program_names[] = {"stress", "stress-ng", NULL};

/* In the child, before the exec: joins the cgroup and restores the signal mask (run() blocks
 * SIGCHLD). On a failure: the cgroup.procs path, errno set. */
static const char *join_cgroup(void *mask) {
  const char *failed = wl_cg_join_self(&g_cg);
  if (!failed) sigprocmask(SIG_SETMASK, mask, NULL);
  return failed;
}

struct outcome {
  int status;
  int killed; /* past the deadline */
  double runtime_s;
  long long max_anon, max_anon_thp; /* bytes, -1 if never read */
};

static void sample(struct outcome *o) {
  long long anon = wl_cg_keyed(&g_cg, "memory.stat", "anon");
  long long thp = wl_cg_keyed(&g_cg, "memory.stat", "anon_thp");
  if (anon > o->max_anon) o->max_anon = anon;
  if (thp > o->max_anon_thp) o->max_anon_thp = thp;
}

/* Forks the program into the cgroup and samples memory.stat until it ends. SIGCHLD is blocked
 * and waited for with sigtimedwait, so its end is seen at once, between samples too. */
static void run(char **argv, long duration, struct outcome *o) {
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, &old)) wl_fail("sigprocmask: %s", strerror(errno));
  const int64_t t0 = wl_now_ns();
  /* stdout and stderr to STRESS_LOG; a failure before the exec fails the run. */
  pid_t pid =
      wl_spawn_logged(argv, (struct wl_child){.prepare = join_cgroup, .arg = &old}, STRESS_LOG);
  const int64_t deadline = t0 + ((int64_t)duration + KILL_AFTER_S) * 1000000000;
  for (;;) {
    pid_t r = waitpid(pid, &o->status, WNOHANG);
    if (r < 0 && errno != EINTR) wl_fail("waitpid: %s", strerror(errno));
    if (r == pid) break;
    sample(o);
    if (!o->killed && wl_now_ns() > deadline) {
      fprintf(stderr, "memcg-stress: %s still running %ld s after its end; killed\n", argv[0],
              (long)KILL_AFTER_S);
      o->killed = 1;
      wl_cg_kill_all(&g_cg);
    }
    const struct timespec ts = {0, SAMPLE_NS};
    sigtimedwait(&chld, NULL, &ts);
  }
  o->runtime_s = (double)(wl_now_ns() - t0) / 1e9;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The end of STRESS_LOG (its last line or two), for the console. */
static void report_log(void) {
  char buf[512];
  const ssize_t n = wl_read_tail(STRESS_LOG, buf, sizeof buf);
  if (n <= 0) return;
  fprintf(stderr, "memcg-stress: %s ends:\n%s%s", STRESS_LOG, buf, buf[n - 1] == '\n' ? "" : "\n");
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "memcg-stress.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const uint64_t memory_max = wl_arg_size(spec, "memory_max");
  const uint64_t swap_max = wl_arg_size(spec, "swap_max");
  const uint64_t vm_bytes = wl_arg_size(spec, "vm_bytes");
  const uint64_t vm_stride = wl_arg_size(spec, "vm_stride");
  const long duration = wl_param_long(spec, "duration");
  const struct program *prog = &programs[wl_arg_choice(spec, "program", program_names)];
  if (memory_max < ((uint64_t)1 << 20)) wl_usage("memory_max=%" PRIu64 ": at least 1M", memory_max);
  if (!vm_bytes) wl_usage("vm_bytes: must not be 0");
  if (!vm_stride) wl_usage("vm_stride: must not be 0");
  if (prog == &programs[1] && wl_arg_given(spec, "vm_stride"))
    wl_usage("vm_stride: stress-ng --vm has no stride (program=stress only)");

  char *pargv[16], pbuf[96];
  prog->args(pargv, pbuf, sizeof pbuf, vm_bytes, vm_stride, duration);
  atexit(cleanup);
  int swap_max_set = 0;
  setup_cgroup(memory_max, swap_max, &swap_max_set);

  struct outcome o = {.max_anon = -1, .max_anon_thp = -1};
  const long long split0 = wl_vmstat("thp_underused_split_page");
  run(pargv, duration, &o);
  const long long split1 = wl_vmstat("thp_underused_split_page");
  const int exited0 = WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0;
  const int survived = exited0 && !o.killed && o.runtime_s >= (double)duration * 0.99;
  char how[64];
  fprintf(stderr, "memcg-stress: %s ended after %.2f s: %s\n", pargv[0], o.runtime_s,
          wl_describe_status(o.status, how, sizeof how));
  report_log();

  const long long peak = wl_cg_number(&g_cg, "memory.peak");
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "survived", survived);
  wl_json_opt(&j, "oom_kill", wl_cg_keyed(&g_cg, "memory.events", "oom_kill"));
  wl_json_opt(&j, "oom", wl_cg_keyed(&g_cg, "memory.events", "oom"));
  wl_json_opt(&j, "max_events", wl_cg_keyed(&g_cg, "memory.events", "max"));
  wl_json_opt(&j, "peak_kb", peak < 0 ? -1 : peak / 1024);
  wl_json_opt(&j, "max_anon_kb", o.max_anon < 0 ? -1 : o.max_anon / 1024);
  wl_json_opt(&j, "max_anon_thp_kb", o.max_anon_thp < 0 ? -1 : o.max_anon_thp / 1024);
  wl_json_opt(&j, "underused_split", wl_delta(split0, split1));
  wl_json_num(&j, "runtime_s", o.runtime_s);
  wl_json_int(&j, "swap_max_set", swap_max_set);
  wl_json_print(&j);
  cleanup();
  wl_ok();
  return 0;
}
