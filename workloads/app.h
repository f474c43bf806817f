/* foliolab workloads: helpers of the workloads that run Debian's programs (redis, postgres,
 * memcg-stress). Header only, C11 + libc, included after common.h.
 *
 * - spawning a program with argv: stdin /dev/null, stdout and stderr to a log file or a pipe,
 *   optionally a parent-death signal, a working directory and a step of the caller's in the child
 *   (switching user, joining a cgroup); a failure before the exec fails the run;
 * - waiting for a child: to its end, or with a deadline;
 * - a staged stop: a first signal (SIGTERM, SIGINT, SIGQUIT), then SIGKILL after a grace period;
 *   SIGKILL to the children of a process;
 * - a server: waiting until its Unix socket accepts a connection, failing the run when it ends;
 * - a log's tail on one line, for a FAIL reason;
 * - /proc/PID files of a child.
 */
#ifndef FOLIOLAB_WORKLOAD_APP_H
#define FOLIOLAB_WORKLOAD_APP_H

#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------- logs ---------------- */

static inline int wl_open_log(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) wl_fail("open %s: %s", path, strerror(errno));
  return fd;
}

/* The last size - 1 bytes of path into buf, NUL-terminated: their count, or -1 if unreadable. */
static inline ssize_t wl_read_tail(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const off_t end = lseek(fd, 0, SEEK_END), keep = (off_t)size - 1;
  ssize_t n = pread(fd, buf, size - 1, end > keep ? end - keep : 0);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return n;
}

/* The lines from start on, joined by " | " into one, into out (as much as fits). */
static inline void wl_join_lines(const char *start, char *out, size_t outlen) {
  size_t len = 0;
  out[0] = '\0';
  for (const char *p = start; *p && len + 4 < outlen; p++) {
    if (*p == '\r') continue;
    if (*p == '\n') {
      len += (size_t)snprintf(out + len, outlen - len, " | ");
      continue;
    }
    out[len++] = *p;
    out[len] = '\0';
  }
}

/* The last `want` lines of a log file on one line, joined by " | " (for a FAIL reason). */
static inline const char *wl_log_tail(const char *path, int want, char *out, size_t outlen) {
  static char buf[8192];
  ssize_t n = wl_read_tail(path, buf, sizeof buf);
  if (n < 0) {
    snprintf(out, outlen, "(%s unreadable)", path);
    return out;
  }
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) n--;
  buf[n] = '\0';
  if (!n) {
    snprintf(out, outlen, "(%s is empty)", path);
    return out;
  }
  char *start = buf + n;
  for (int lines = 0; start > buf; start--)
    if (start[-1] == '\n' && ++lines == want) break;
  wl_join_lines(start, out, outlen);
  return out;
}

/* Reads fd to its end into out: at most max bytes kept (NUL-terminated), the rest dropped. */
static inline size_t wl_read_all(int fd, char *out, size_t max) {
  size_t len = 0;
  char sink[4096];
  for (;;) {
    char *at = len < max ? out + len : sink;
    size_t room = len < max ? max - len : sizeof sink;
    ssize_t n = read(fd, at, room);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (at != sink) len += (size_t)n;
  }
  out[len] = '\0';
  return len;
}

/* ---------------- spawning ---------------- */

/* How a child starts: stdin is /dev/null. */
struct wl_child {
  int out_fd, err_fd; /* its stdout and stderr */
  int death_signal;   /* PR_SET_PDEATHSIG: sent to it if this program dies first; 0: none */
  const char *dir;    /* its working directory; NULL: this program's */
  /* Run in the child before the exec, first after the redirection (setuid, joining a cgroup):
   * NULL, or the name of the step that failed with errno set. NULL: nothing. */
  const char *(*prepare)(void *arg);
  void *arg;
};

/* In the child: "<step>[ <what>]: <errno's text>" to the parent over fd, exit 127. */
static inline _Noreturn void wl_child_fail(int fd, const char *step, const char *what) {
  dprintf(fd, "%s%s%s: %s", step, what ? " " : "", what ? what : "", strerror(errno));
  _exit(127);
}

/* In the child: the redirections, prepare, the death signal (after prepare: setuid clears it;
 * the parent may have died in between), the directory, then execvp. */
static inline _Noreturn void wl_child_exec(char *const argv[], const struct wl_child *c,
                                           pid_t parent, int err_pipe) {
  int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (nul < 0 || dup2(nul, 0) < 0 || dup2(c->out_fd, 1) < 0 || dup2(c->err_fd, 2) < 0)
    wl_child_fail(err_pipe, "redirecting stdin, stdout and stderr", NULL);
  const char *step = c->prepare ? c->prepare(c->arg) : NULL;
  if (step) wl_child_fail(err_pipe, step, NULL);
  if (c->death_signal && prctl(PR_SET_PDEATHSIG, c->death_signal))
    wl_child_fail(err_pipe, "prctl(PR_SET_PDEATHSIG)", NULL);
  if (c->death_signal && getppid() != parent) _exit(127);
  if (c->dir && chdir(c->dir)) wl_child_fail(err_pipe, "chdir", c->dir);
  execvp(argv[0], argv);
  wl_child_fail(err_pipe, "execvp", NULL);
}

/* Waits for pid to end, its status dropped; no FAIL (also at exit). */
static inline void wl_reap(pid_t pid) {
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
}

/* fork + execvp(argv) as c says. A failure in the child before the exec comes back over a
 * close-on-exec pipe (EOF: the exec worked) and fails the run: "starting <argv[0]>: <step>: ...".
 */
static inline pid_t wl_spawn(char *const argv[], struct wl_child c) {
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC)) wl_fail("pipe: %s", strerror(errno));
  fflush(stdout);
  fflush(stderr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) wl_fail("fork: %s", strerror(errno));
  if (pid == 0) wl_child_exec(argv, &c, parent, pfd[1]);
  close(pfd[1]);
  char err[512];
  ssize_t n;
  while ((n = read(pfd[0], err, sizeof err - 1)) < 0 && errno == EINTR) {
  }
  close(pfd[0]);
  if (n > 0) {
    err[n] = '\0';
    wl_reap(pid);
    wl_fail("starting %s: %s", argv[0], err);
  }
  return pid;
}

/* wl_spawn() with stdout and stderr to the log file at path (truncated). */
static inline pid_t wl_spawn_logged(char *const argv[], struct wl_child c, const char *path) {
  const int fd = wl_open_log(path);
  c.out_fd = c.err_fd = fd;
  const pid_t pid = wl_spawn(argv, c);
  close(fd);
  return pid;
}

/* ---------------- waiting ---------------- */

/* "exit status N", "signal N": a wait status in words, into out. */
static inline const char *wl_describe_status(int status, char *out, size_t len) {
  if (WIFEXITED(status))
    snprintf(out, len, "exit status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    snprintf(out, len, "signal %d", WTERMSIG(status));
  else
    snprintf(out, len, "status 0x%x", status);
  return out;
}

/* Waits for pid to end: its wait status. A waitpid error fails the run ("waitpid <name>"). */
static inline int wl_wait_status(pid_t pid, const char *name) {
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) wl_fail("waitpid %s: %s", name, strerror(errno));
  return status;
}

/* Waits up to ms for pid to end; 1 if it did (reaped, its status in *status if not NULL). */
static inline int wl_wait_exit(pid_t pid, int ms, int *status) {
  const int64_t deadline = wl_now_ns() + (int64_t)ms * 1000000;
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return 1;
    if (wl_now_ns() > deadline) return 0;
    usleep(10000);
  }
}

/* Runs argv (as c says) to its end: its stdout into out (wl_read_all, at most max bytes), its
 * stderr into the log file at log. Returns its wait status. */
static inline int wl_run_capture(char *const argv[], struct wl_child c, const char *log, char *out,
                                 size_t max) {
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC)) wl_fail("pipe: %s", strerror(errno));
  c.out_fd = pfd[1];
  c.err_fd = wl_open_log(log);
  const pid_t pid = wl_spawn(argv, c);
  close(pfd[1]);
  close(c.err_fd);
  wl_read_all(pfd[0], out, max);
  close(pfd[0]);
  return wl_wait_status(pid, argv[0]);
}

/* ---------------- stopping ---------------- */

static inline void wl_kill_reap(pid_t pid) {
  kill(pid, SIGKILL);
  wl_reap(pid);
}

/* SIGKILL to every process whose parent is ppid (a server's workers; as wl_stop's before_kill: the
 * children of the server being killed). */
static inline void wl_kill_children(pid_t ppid) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char path[300], buf[512];
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* after the command name, which may hold ')' */
    char state;
    int parent;
    if (paren && sscanf(paren + 1, " %c %d", &state, &parent) == 2 && parent == (int)ppid)
      kill((pid_t)strtol(e->d_name, NULL, 10), SIGKILL);
  }
  if (d) closedir(d);
}

/* Staged stop of the child pid: sig (SIGTERM, SIGINT, SIGQUIT), and if it has not ended within
 * grace_ms, before_kill(pid) (NULL: nothing), SIGKILL and reaping. 1 if it ended after sig, 0
 * if it was killed, -1 (errno set, nothing else done) if sig could not be sent. */
static inline int wl_stop(pid_t pid, int sig, int grace_ms, void (*before_kill)(pid_t)) {
  if (kill(pid, sig)) return -1;
  if (wl_wait_exit(pid, grace_ms, NULL)) return 1;
  if (before_kill) before_kill(pid);
  wl_kill_reap(pid);
  return 0;
}

/* ---------------- servers ---------------- */

/* A server child that runs until the measurement is done, listening on a Unix socket. */
struct wl_server {
  const char *name; /* in FAIL reasons */
  const char *log;  /* its stdout and stderr */
  const char *sock; /* its Unix socket */
  pid_t pid;        /* running (not reaped); 0 when none */
};

/* Kills and reaps the server if it runs, and removes its socket (at exit, after wl_fail too). */
static inline void wl_server_stop(struct wl_server *s) {
  if (s->pid > 0) {
    wl_kill_reap(s->pid);
    s->pid = 0;
  }
  unlink(s->sock);
}

/* The end of a measured run: `sig`, then SIGKILL after grace_ms (said on stderr), the socket
 * removed. 1 when the server ended by itself in time. */
static inline int wl_server_shutdown(struct wl_server *s, int sig, long grace_ms) {
  const int clean = wl_stop(s->pid, sig, grace_ms, NULL);
  if (clean < 0) wl_fail("kill %s: %s", s->name, strerror(errno));
  s->pid = 0;
  if (unlink(s->sock) && errno != ENOENT) wl_fail("unlink %s: %s", s->sock, strerror(errno));
  if (!clean) fprintf(stderr, "%s ignored signal %d for %ld ms; killed\n", s->name, sig, grace_ms);
  return clean;
}

/* Whether a Unix stream socket at path accepts a connection. */
static inline int wl_unix_accepts(const char *path) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) wl_fail("socket(AF_UNIX): %s", strerror(errno));
  int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
  close(fd);
  return ok;
}

/* The server has exited if waitpid says so: it fails the run with the log's end. */
static inline void wl_server_check(struct wl_server *s, const char *when) {
  int status;
  pid_t r = waitpid(s->pid, &status, WNOHANG);
  if (r == 0) return;
  if (r < 0) wl_fail("waitpid %s: %s", s->name, strerror(errno));
  s->pid = 0;
  char how[64], tail[1024];
  wl_fail("%s ended %s (%s); %s ends: %s", s->name, when,
          wl_describe_status(status, how, sizeof how), s->log,
          wl_log_tail(s->log, 5, tail, sizeof tail));
}

/* Waits up to timeout_s for the started server's socket to accept a connection and for ready()
 * (NULL: nothing more); fails the run if the server ends first or the time runs out. */
static inline void wl_server_await(struct wl_server *s, long timeout_s, int (*ready)(void)) {
  const int64_t deadline = wl_now_ns() + (int64_t)timeout_s * 1000000000;
  for (;;) {
    wl_server_check(s, "before accepting connections");
    if (wl_unix_accepts(s->sock) && (!ready || ready())) return;
    if (wl_now_ns() > deadline) {
      char tail[1024];
      wl_fail("%s did not accept connections on %s within %ld s; %s ends: %s", s->name, s->sock,
              timeout_s, s->log, wl_log_tail(s->log, 5, tail, sizeof tail));
    }
    usleep(10000);
  }
}

/* ---------------- /proc/PID ---------------- */

/* wl_proc_kb() of /proc/PID/<file> (status, smaps_rollup): -1 if absent or unreadable. */
static inline long wl_pid_kb(pid_t pid, const char *file, const char *field) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
  return wl_proc_kb(path, field);
}

#endif
