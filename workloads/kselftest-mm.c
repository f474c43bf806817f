/* kselftest-mm: runs the kernel's own mm selftests in the guest, one program at a time, each
 * with its own deadline, and frames what each printed for the host.
 *
 * The programs come in the run's job archive (harness/image/kselftest_builder.h): the binary
 * /job/kselftest/<name>, and /job/kselftest/<name>.args with one argument per line. They are
 * built from the tree the guest's kernel was built from, so their UAPI headers match it.
 *
 * Output (read by the host's `kselftest` adapter, harness/protocol/output_adapter.h):
 *   @kselftest env swap_kb=<SwapTotal>
 *   @kselftest begin <name>
 *   | <each line the program wrote on stdout or stderr>
 *   @kselftest end <name> exit=<status or -1> signal=<n> timeout=<0|1> wall_ms=<n> truncated=<0|1>
 *   ...
 *   FOLIOLAB-WORKLOAD-OK
 * The host turns every block into test results ("tap.pass", "tap.fail", "tap.skip"): a program
 * that fails, crashes or times out is a result, not a failure of this runner, which exits 0
 * once every program ran.
 *
 * Arguments: tests=<names, blank- or comma-separated> timeout=<seconds per program>.
 */
#include "common.h"
#include "def_args.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSELFTEST_DIR "/job/kselftest"
#define MAX_OUTPUT ((size_t)2 << 20) /* per program; the agent keeps 16 MiB of our stdout */
#define MAX_ARGS 64
#define KILL_GRACE_MS 5000 /* after SIGKILL, how long to wait for the pipe to close */

struct outcome {
  int status; /* waitpid status */
  int timed_out, truncated;
  int64_t wall_ms;
  char *out;
  size_t len;
};

/* /job/kselftest/<name>.args: one argument per line; absent means none. */
static int load_args(const char *name, char **argv, char *buf, size_t buflen) {
  char path[512];
  int n = 0;
  snprintf(path, sizeof path, "%s/%s.args", KSELFTEST_DIR, name);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t used = fread(buf, 1, buflen - 1, f);
  fclose(f);
  buf[used] = '\0';
  for (char *line = buf, *nl; *line && n < MAX_ARGS; line = nl + 1) {
    nl = strchr(line, '\n');
    if (!nl) {
      argv[n++] = line;
      break;
    }
    *nl = '\0';
    argv[n++] = line;
  }
  return n;
}

/* Child: its own process group (so a timeout kills what it forked too), cwd /tmp, stdin
 * /dev/null, stdout and stderr into the pipe. */
static _Noreturn void exec_program(const char *path, char **argv, int out_fd) {
  setpgid(0, 0);
  if (chdir("/tmp")) _exit(126);
  int nul = open("/dev/null", O_RDONLY);
  if (nul < 0 || dup2(nul, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
  execv(path, argv);
  dprintf(2, "foliolab: execv %s: %s\n", path, strerror(errno));
  _exit(127);
}

static void keep(struct outcome *o, const char *buf, size_t n) {
  if (o->len + n > MAX_OUTPUT) {
    o->truncated = 1;
    n = MAX_OUTPUT - o->len;
  }
  memcpy(o->out + o->len, buf, n);
  o->len += n;
}

/* Reads the pipe until EOF; at the deadline the process group gets SIGKILL, and reading stops
 * KILL_GRACE_MS later even if a stray descendant still holds the pipe open. */
static void collect(pid_t pid, int fd, int64_t timeout_ms, struct outcome *o) {
  const int64_t t0 = wl_now_ns() / 1000000;
  int64_t deadline = t0 + timeout_ms;
  char buf[65536];
  for (;;) {
    int64_t left = deadline - wl_now_ns() / 1000000;
    if (left <= 0) {
      if (o->timed_out) break;
      o->timed_out = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      deadline = wl_now_ns() / 1000000 + KILL_GRACE_MS;
      continue;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    keep(o, buf, (size_t)n);
  }
  while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR) {
  }
  kill(-pid, SIGKILL); /* what it forked and left behind */
  o->wall_ms = wl_now_ns() / 1000000 - t0;
}

static void run_program(const char *name, long timeout_s) {
  char path[512], argbuf[4096];
  char *argv[MAX_ARGS + 2];
  snprintf(path, sizeof path, "%s/%s", KSELFTEST_DIR, name);
  argv[0] = path;
  int n = load_args(name, argv + 1, argbuf, sizeof argbuf);
  argv[1 + n] = NULL;

  struct outcome o = {.out = malloc(MAX_OUTPUT)};
  if (!o.out) wl_fail("out of memory");
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC)) wl_fail("pipe: %s", strerror(errno));
  fflush(stdout);
  fprintf(stderr, "kselftest-mm: %s: started (timeout %ld s)\n", name, timeout_s);
  pid_t pid = fork();
  if (pid < 0) wl_fail("fork: %s", strerror(errno));
  if (pid == 0) exec_program(path, argv, pfd[1]);
  close(pfd[1]);
  collect(pid, pfd[0], (int64_t)timeout_s * 1000, &o);
  close(pfd[0]);
  /* Progress on the console (the agent hands stdout to the host only when the rep ends). */
  fprintf(stderr, "kselftest-mm: %s: exit=%d signal=%d timeout=%d after %lld ms\n", name,
          WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1,
          WIFSIGNALED(o.status) ? WTERMSIG(o.status) : 0, o.timed_out, (long long)o.wall_ms);

  printf("@kselftest begin %s\n", name);
  for (size_t at = 0; at < o.len;) {
    const char *nl = memchr(o.out + at, '\n', o.len - at);
    size_t end = nl ? (size_t)(nl - o.out) : o.len;
    printf("| %.*s\n", (int)(end - at), o.out + at);
    at = end + 1;
  }
  printf("@kselftest end %s exit=%d signal=%d timeout=%d wall_ms=%lld truncated=%d\n", name,
         WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1,
         WIFSIGNALED(o.status) ? WTERMSIG(o.status) : 0, o.timed_out, (long long)o.wall_ms,
         o.truncated);
  fflush(stdout);
  free(o.out);
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "kselftest-mm.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const long timeout_s = wl_param_long(spec, "timeout");
  char *tests = strdup(wl_arg_str(spec, "tests"));
  if (!tests) wl_fail("out of memory");

  printf("@kselftest env swap_kb=%ld\n", wl_proc_kb("/proc/meminfo", "SwapTotal"));
  int ran = 0;
  for (char *save = NULL, *name = strtok_r(tests, " ,", &save); name;
       name = strtok_r(NULL, " ,", &save)) {
    if (strchr(name, '/') || name[0] == '.') wl_usage("tests: bad program name '%s'", name);
    run_program(name, timeout_s);
    ran++;
  }
  if (!ran) wl_usage("tests: no program named");
  free(tests);
  wl_ok();
  return 0;
}
