/* memcached: Debian's memcached 1.6 over a Unix socket, with -L (its cache in madvised large pages)
 * or without, one server per run; this program is the client (memcached's text protocol), so no
 * load tool is needed (Debian's memcached package has none).
 *
 * Needs the guest's Debian root filesystem with memcached (FL_PACKAGES in memcached.def):
 * /usr/bin/memcached and the `memcache` user its postinst creates (read from /etc/passwd with
 * fgetpwent: a static getpwnam would load the image's NSS modules). Run as root, the server runs as
 * `memcache`: this program switches to it in the child before the exec, rather than memcached's
 * own `-u`, because a change of credentials clears the parent-death signal (commit_creds), which
 * is set after the switch. Run as another user, the server runs as that user.
 *
 * Arguments (key=value):
 *   memory=64          memcached -m: item memory in MiB. With -L memcached 1.6.18 needs at least
 *                      one MiB per slab class (39 with its defaults) or it exits at start
 *   threads=2          memcached -t: worker threads
 *   large_pages=true   memcached -L: at start memcached 1.6 reads THP `enabled` (it refuses -L
 *                      when that says never), takes the whole item memory in one chunk aligned to
 *                      the huge page size (posix_memalign, /proc/meminfo Hugepagesize),
 *                      madvise(MADV_HUGEPAGE)s it and writes one 1 MiB slab page per slab class
 *                      into it (39 MiB at memory=64). Without -L slab pages are malloc()ed one
 *                      MiB at a time as items need them, never madvised
 *   keys=20000         keys k0 .. k<keys-1> stored, then read back
 *   value_size=1024    bytes of each value
 *   start_timeout=60   seconds to wait for the server's socket
 *
 * Each run: `memcached -s /tmp/foliolab-memcached.sock -a 0766 -m MEMORY -t THREADS [-L]`, not
 * daemonized, in /tmp, stdout and stderr to /tmp/foliolab-memcached.log, with a parent-death
 * signal; wait until the socket accepts a connection. Then, over one connection, one request at
 * a time: `set k<i> 0 0 <value_size>` with a value made from i, for every key (each answered
 * STORED), then `get k<i>` for every key (each answered with that value), both phases timed;
 * then the server's Rss and AnonHugePages (/proc/<pid>/smaps_rollup) and its `stats` (bytes,
 * curr_items). Then SIGTERM (SIGKILL after 10 s) and the socket is removed.
 * Metrics: set_ops_per_sec, get_ops_per_sec (keys / the phase's wall time), server_rss_kb,
 * server_anon_huge_kb, bytes, items.
 * Invariants: the binary and the user exist, the server starts and still runs after the
 * measurement, every set is STORED, every get returns its key's value (none evicted: a
 * too small `memory` fails here), `stats` names the server's pid and holds `keys` items.
 */
#include "common.h"
#include "def_args.h"

#include "app.h"

#include <grp.h>
#include <pwd.h>
#include <sys/time.h>

#ifndef MC_BIN /* -DMC_BIN=... to try the missing-binary path */
#define MC_BIN "/usr/bin/memcached"
#endif
#define MC_USER "memcache"
#define SOCK_PATH "/tmp/foliolab-memcached.sock"
#define SERVER_LOG "/tmp/foliolab-memcached.log"
#define STOP_GRACE_MS 10000
#define IO_TIMEOUT_S 120 /* one request's answer; the agent's deadline covers the run */

/* The running memcached (not reaped): killed at exit (also after wl_fail). */
static struct wl_server g_server = {"memcached", SERVER_LOG, SOCK_PATH, 0};
static uid_t g_uid;
static gid_t g_gid;

static void cleanup(void) { wl_server_stop(&g_server); }

/* ---------------- the server ---------------- */

/* In the child, before the exec: the memcache user (when this program runs as root). */
static const char *become_memcache(void *unused) {
  (void)unused;
  if (setgroups(1, &g_gid) || setgid(g_gid) || setuid(g_uid))
    return "setgroups/setgid/setuid to " MC_USER;
  return NULL;
}

/* The memcache user of /etc/passwd into g_uid and g_gid. */
static void find_user(void) {
  FILE *f = fopen("/etc/passwd", "re");
  struct passwd *pw = NULL;
  while (f && (pw = fgetpwent(f)) && strcmp(pw->pw_name, MC_USER)) {
  }
  if (!pw) wl_fail("no user '%s' in /etc/passwd (Debian's memcached package creates it)", MC_USER);
  g_uid = pw->pw_uid;
  g_gid = pw->pw_gid;
  fclose(f);
  if (!g_uid) wl_fail("user '%s' is root", MC_USER);
}

static void start_server(long memory, long threads, int large_pages, long timeout_s) {
  if (unlink(SOCK_PATH) && errno != ENOENT) wl_fail("unlink %s: %s", SOCK_PATH, strerror(errno));
  char m_s[24], t_s[24];
  snprintf(m_s, sizeof m_s, "%ld", memory);
  snprintf(t_s, sizeof t_s, "%ld", threads);
  /* clang-format off */
  char *argv[] = {MC_BIN, "-s", SOCK_PATH, "-a", "0766", "-m", m_s, "-t", t_s,
                  large_pages ? "-L" : NULL, NULL};
  /* clang-format on */
  /* SIGTERM: memcached exits at once */
  const struct wl_child child = {
      .death_signal = SIGTERM, .dir = "/tmp", .prepare = geteuid() ? NULL : become_memcache};
  g_server.pid = wl_spawn_logged(argv, child, SERVER_LOG);
  wl_server_await(&g_server, timeout_s, NULL);
}

/* SIGTERM, then SIGKILL after STOP_GRACE_MS; the socket (left by memcached) is removed. */
static void stop_server(void) { wl_server_shutdown(&g_server, SIGTERM, STOP_GRACE_MS); }

/* ---------------- the client ---------------- */

/* One connection to the server, its answers read through buf[start, end). */
struct conn {
  int fd;
  size_t start, end;
  char buf[65536];
};

/* Fails with what; if the server has ended (waited for up to 1 s), with its status and log's end
 * too. */
static _Noreturn __attribute__((format(printf, 1, 2))) void conn_fail(const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int status = 0;
  if (g_server.pid > 0 && wl_wait_exit(g_server.pid, 1000, &status)) {
    char how[64], tail[1024];
    g_server.pid = 0;
    wl_fail("%s; memcached had ended (%s), %s ends: %s", what,
            wl_describe_status(status, how, sizeof how), SERVER_LOG,
            wl_log_tail(SERVER_LOG, 5, tail, sizeof tail));
  }
  wl_fail("%s", what);
}

static void conn_open(struct conn *c) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", SOCK_PATH);
  c->start = c->end = 0;
  c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->fd < 0) wl_fail("socket(AF_UNIX): %s", strerror(errno));
  const struct timeval tv = {.tv_sec = IO_TIMEOUT_S};
  if (setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ||
      setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv))
    wl_fail("setsockopt(SO_RCVTIMEO/SO_SNDTIMEO): %s", strerror(errno));
  if (connect(c->fd, (struct sockaddr *)&a, sizeof a))
    conn_fail("connect %s: %s", SOCK_PATH, strerror(errno));
}

static void conn_send(struct conn *c, const char *p, size_t n, const char *what) {
  while (n) {
    ssize_t k = send(c->fd, p, n, MSG_NOSIGNAL); /* no SIGPIPE when the server has gone */
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) conn_fail("%s: sending to memcached: %s", what, k < 0 ? strerror(errno) : "EOF");
    p += k;
    n -= (size_t)k;
  }
}

/* More of the answer into buf (moved to its start first when need bytes would not fit). */
static void conn_fill(struct conn *c, size_t need, const char *what) {
  if (c->start && c->start + need > sizeof c->buf) {
    memmove(c->buf, c->buf + c->start, c->end - c->start);
    c->end -= c->start;
    c->start = 0;
  }
  for (;;) {
    ssize_t k = read(c->fd, c->buf + c->end, sizeof c->buf - c->end);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      conn_fail("%s: no answer from memcached within %d s", what, IO_TIMEOUT_S);
    if (k < 0) conn_fail("%s: reading from memcached: %s", what, strerror(errno));
    if (k == 0) conn_fail("%s: memcached closed the connection", what);
    c->end += (size_t)k;
    return;
  }
}

/* The next answer line without its "\r\n", NUL-terminated (valid until the next read). */
static const char *conn_line(struct conn *c, const char *what) {
  for (size_t scanned = 0;;) {
    char *nl = memchr(c->buf + c->start + scanned, '\n', c->end - c->start - scanned);
    if (nl) {
      char *line = c->buf + c->start;
      c->start = (size_t)(nl + 1 - c->buf);
      if (nl > line && nl[-1] == '\r') nl--;
      *nl = '\0';
      return line;
    }
    scanned = c->end - c->start;
    if (scanned + 1 >= sizeof c->buf)
      conn_fail("%s: an answer line longer than %zu bytes", what, sizeof c->buf);
    conn_fill(c, scanned + 1, what);
  }
}

/* The next n bytes of the answer into out. */
static void conn_read(struct conn *c, char *out, size_t n, const char *what) {
  while (n) {
    if (c->start == c->end) {
      c->start = c->end = 0;
      conn_fill(c, 1, what);
    }
    size_t k = c->end - c->start < n ? c->end - c->start : n;
    memcpy(out, c->buf + c->start, k);
    c->start += k;
    out += k;
    n -= k;
  }
}

/* Key i's value: n printable bytes of an xorshift stream seeded by i. */
static void make_value(char *v, long i, long n) {
  uint64_t x = ((uint64_t)i + 1) * 0x9E3779B97F4A7C15u | 1;
  for (long j = 0; j < n; j++) {
    if (!(j & 7)) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    v[j] = (char)('!' + ((x >> ((j & 7) * 8)) & 0xff) % 94);
  }
}

/* `set k<i> 0 0 <size>` for every key, each answered STORED. req: room for a command and value. */
static void set_all(struct conn *c, long keys, long size, char *req) {
  for (long i = 0; i < keys; i++) {
    int h = snprintf(req, 64, "set k%ld 0 0 %ld\r\n", i, size);
    make_value(req + h, i, size);
    memcpy(req + h + size, "\r\n", 2);
    conn_send(c, req, (size_t)h + (size_t)size + 2, "set");
    const char *line = conn_line(c, "set");
    if (strcmp(line, "STORED")) conn_fail("set k%ld: memcached answered '%.200s'", i, line);
  }
}

/* `get k<i>` for every key, each answered with its value: VALUE k<i> 0 <size>, the bytes, END. */
static void get_all(struct conn *c, long keys, long size, char *want, char *got) {
  for (long i = 0; i < keys; i++) {
    char req[64], head[96];
    int n = snprintf(req, sizeof req, "get k%ld\r\n", i);
    conn_send(c, req, (size_t)n, "get");
    const char *line = conn_line(c, "get");
    if (!strcmp(line, "END"))
      conn_fail("get k%ld: not found (evicted? memory may be too small for keys x value_size)", i);
    snprintf(head, sizeof head, "VALUE k%ld 0 %ld", i, size);
    if (strcmp(line, head)) conn_fail("get k%ld: memcached answered '%.200s'", i, line);
    conn_read(c, got, (size_t)size + 2, "get");
    make_value(want, i, size);
    if (memcmp(got, want, (size_t)size) || memcmp(got + size, "\r\n", 2))
      conn_fail("get k%ld: the value read back differs from the value stored", i);
    line = conn_line(c, "get");
    if (strcmp(line, "END")) conn_fail("get k%ld: '%.200s' after the value, not END", i, line);
  }
}

struct stats {
  long long pid, bytes, curr_items, evictions;
};

/* `stats`: its STAT lines up to END; the ones needed here (-1 when absent). */
static struct stats read_stats(struct conn *c) {
  struct stats s = {-1, -1, -1, -1};
  conn_send(c, "stats\r\n", 7, "stats");
  for (;;) {
    const char *line = conn_line(c, "stats");
    if (!strcmp(line, "END")) return s;
    char name[64];
    long long v;
    if (strncmp(line, "STAT ", 5)) conn_fail("stats: memcached answered '%.200s'", line);
    if (sscanf(line + 5, "%63s %lld", name, &v) != 2) continue; /* version, libevent: text */
    if (!strcmp(name, "pid")) s.pid = v;
    if (!strcmp(name, "bytes")) s.bytes = v;
    if (!strcmp(name, "curr_items")) s.curr_items = v;
    if (!strcmp(name, "evictions")) s.evictions = v;
  }
}

static double ops_per_sec(long ops, int64_t ns) { return ns > 0 ? ops / (ns / 1e9) : NAN; }

/* Debian's memcached is there (and its user, as root), and no server holds the socket. */
static void check_installation(void) {
  if (access(MC_BIN, X_OK))
    wl_fail("%s: %s (Debian's memcached: machine.image debian-memcached)", MC_BIN, strerror(errno));
  if (geteuid() == 0) find_user();
  if (wl_unix_accepts(SOCK_PATH))
    wl_fail("a server already accepts connections on %s: stop it first", SOCK_PATH);
}

/* What the server says of itself after the measurement, and the rates. */
static void check_stats(const struct stats *st, pid_t server_pid, long keys, double set_rate,
                        double get_rate) {
  if (st->pid != (long long)server_pid)
    wl_fail("stats: pid %lld, not the server this run started (%d)", st->pid, (int)server_pid);
  if (st->curr_items != keys)
    wl_fail("stats: curr_items %lld, expected keys=%ld (evictions %lld)", st->curr_items, keys,
            st->evictions);
  if (!(st->bytes > 0)) wl_fail("stats: bytes %lld with %ld items stored", st->bytes, keys);
  if (!(set_rate > 0) || !isfinite(set_rate) || !(get_rate > 0) || !isfinite(get_rate))
    wl_fail("set or get rate not positive: %g, %g", set_rate, get_rate);
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "memcached.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const long memory = wl_param_long(spec, "memory");
  const long threads = wl_param_long(spec, "threads");
  const long keys = wl_param_long(spec, "keys");
  const long value_size = wl_param_long(spec, "value_size");
  const long start_timeout = wl_param_long(spec, "start_timeout");
  const int large_pages = wl_arg_bool(spec, "large_pages");

  check_installation();
  char *req = malloc((size_t)value_size + 64), *got = malloc((size_t)value_size + 2);
  if (!req || !got) wl_fail("out of memory");

  atexit(cleanup);
  start_server(memory, threads, large_pages, start_timeout);
  struct conn *c = malloc(sizeof *c);
  if (!c) wl_fail("out of memory");
  conn_open(c);
  const int64_t t0 = wl_now_ns();
  set_all(c, keys, value_size, req);
  const int64_t t1 = wl_now_ns();
  get_all(c, keys, value_size, req, got);
  const int64_t t2 = wl_now_ns();
  wl_server_check(&g_server, "during the measurement");

  const pid_t server_pid = g_server.pid;
  const long rss_kb = wl_pid_kb(server_pid, "smaps_rollup", "Rss");
  const long huge_kb = wl_pid_kb(server_pid, "smaps_rollup", "AnonHugePages");
  const struct stats st = read_stats(c);
  close(c->fd);
  stop_server();

  const double set_rate = ops_per_sec(keys, t1 - t0), get_rate = ops_per_sec(keys, t2 - t1);
  struct wl_json j = {.len = 0};
  wl_json_num(&j, "set_ops_per_sec", set_rate);
  wl_json_num(&j, "get_ops_per_sec", get_rate);
  wl_json_kb(&j, "server_rss_kb", rss_kb);
  wl_json_kb(&j, "server_anon_huge_kb", huge_kb);
  wl_json_opt(&j, "bytes", st.bytes);
  wl_json_opt(&j, "items", st.curr_items);
  wl_json_print(&j);
  check_stats(&st, server_pid, keys, set_rate, get_rate);
  free(c);
  free(req);
  free(got);
  wl_ok();
  return 0;
}
