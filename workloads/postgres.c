/* postgres: Debian's PostgreSQL 15 server and pgbench over a Unix socket, one fresh cluster per
 * run. Seed 000 ("add mTHP support for anonymous shmem") names databases as the users of
 * mmap(MAP_SHARED | MAP_ANONYMOUS): with huge_pages=off PostgreSQL's shared memory
 * (shared_buffers and the rest) is one such mapping, anonymous shmem, whose folio size the
 * per-size hugepages-<size>kB/shmem_enabled knobs decide.
 *
 * Needs the guest's Debian root filesystem with postgresql-15 (FL_PACKAGES in postgres.def):
 * initdb, postgres and pgbench from /usr/lib/postgresql/15/bin, and the `postgres` user of
 * /etc/passwd (read with fgetpwent: a static getpwnam would load the image's NSS modules). Runs
 * as root; initdb and the server run as `postgres`, pgbench as root.
 *
 * Arguments (key=value):
 *   shared_buffers=128M  the server's shared_buffers (a multiple of 8K, at least 128K)
 *   scale=2              pgbench -i -s: scale factor
 *   clients=2            pgbench -c: client connections (max_connections is 20)
 *   transactions=500     pgbench -t: transactions per client
 *   mode=tpcb            tpcb (pgbench's TPC-B-like script) or select-only (-S)
 *   seed=1               pgbench --random-seed
 *   start_timeout=60     seconds to wait for the server to accept connections
 *
 * Each run: a data directory /tmp/foliolab-pgdata-XXXXXX (mkdtemp, chowned to postgres), `initdb
 * -D DIR -U postgres -A trust -E UTF8 --locale=C -N` (output to /tmp/foliolab-initdb.log), then
 * `postgres -D DIR -c huge_pages=off -c shared_buffers=<kB>kB -c listen_addresses= -c
 * unix_socket_directories=/tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c
 * max_connections=20`, not daemonized (stdout and stderr to /tmp/foliolab-postgres.log). It is
 * ready when /tmp/.s.PGSQL.5432 accepts a connection and its postmaster.pid says "ready" (what
 * pg_ctl -w waits for). `pgbench -i -s SCALE -h /tmp -U postgres postgres` (output to
 * /tmp/foliolab-pgbench-init.log) loads the tables, then the measured `pgbench -h /tmp -U
 * postgres -c C -j 1 -t T --random-seed=S [-S] postgres` (stdout read from a pipe, stderr to
 * /tmp/foliolab-pgbench.log). The children get LC_ALL=C, TZ=UTC (initdb then writes timezone
 * 'UTC' without searching the zone files), /tmp as working directory and a parent-death signal:
 * no server outlives this program.
 *
 * Metrics: pgbench's tps (without initial connection time), latency average and transactions
 * processed; after the benchmark, the postmaster's Rss and ShmemPmdMapped (smaps_rollup) and the
 * pages allocated to its shared memory segment (its largest "/dev/zero (deleted)" mapping:
 * st_blocks of /proc/PID/map_files/<range>, whoever touched them); from before the server's start
 * to after the benchmark, the /proc/meminfo Shmem and ShmemHugePages deltas (the data directory
 * is on /tmp, tmpfs in the guest: its growth counts in Shmem) and the kB of shmem allocated as
 * large folios (hugepages-<size>kB/stats/shmem_alloc deltas x size, all sizes; initdb's own
 * shared memory is outside that span). Then SIGINT (fast shutdown; after 30 s SIGQUIT, after 5 s
 * more SIGKILL to the server and its children) and the data directory is removed.
 * Invariants: the binaries and the postgres user exist, initdb and pgbench exit 0, the server
 * starts in time and still runs after the benchmark, pgbench processed clients x transactions
 * transactions, none failed, at a positive tps.
 */
#include "common.h"
#include "def_args.h"

#include "app.h"

#include <dirent.h>
#include <ftw.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>

#define PG_BIN "/usr/lib/postgresql/15/bin"
#define PG_USER "postgres"
#define SOCK_DIR "/tmp"
#define SOCK_PATH SOCK_DIR "/.s.PGSQL.5432"
#define SOCK_LOCK SOCK_PATH ".lock"
#define DATA_TEMPLATE "/tmp/foliolab-pgdata-XXXXXX"
#define INITDB_LOG "/tmp/foliolab-initdb.log"
#define SERVER_LOG "/tmp/foliolab-postgres.log"
#define INIT_LOG "/tmp/foliolab-pgbench-init.log"
#define BENCH_LOG "/tmp/foliolab-pgbench.log"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define MAX_OUT ((size_t)1 << 20)
#define STOP_GRACE_MS 30000
#define QUIT_GRACE_MS 5000
#define PG_BLOCK 8192

static const char *const mode_names[] = {"tpcb", "select-only", NULL};

/* The running postmaster (not reaped): killed at exit, after a FAIL. */
static struct wl_server g_server = {"postgres", SERVER_LOG, SOCK_PATH, 0};
static pid_t g_started; /* the postmaster this run started; 0 before */
static int g_stopped;   /* it ended by stop_server()'s fast shutdown (its socket is gone) */
static char g_datadir[sizeof DATA_TEMPLATE]; /* "" until created */
static uid_t g_uid;
static gid_t g_gid;

/* ---------------- processes ---------------- */

/* In the child, before the exec: the postgres user. */
static const char *become_postgres(void *unused) {
  (void)unused;
  if (setgroups(1, &g_gid) || setgid(g_gid) || setuid(g_uid))
    return "setgroups/setgid/setuid to " PG_USER;
  return NULL;
}

/* A child in SOCK_DIR, as the postgres user when as_postgres, and death_signal sent to it if this
 * program dies first (killed by the agent or a timeout: no server outlives the run). */
static struct wl_child child(int as_postgres, int death_signal) {
  return (struct wl_child){.death_signal = death_signal,
                           .dir = SOCK_DIR,
                           .prepare = as_postgres ? become_postgres : NULL};
}

/* Fails with the end of log unless status (what's) is exit 0. */
static void check_ok(int status, const char *what, const char *log) {
  if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    char how[64], tail[1024], server[1200] = "";
    wl_describe_status(status, how, sizeof how);
    /* A client fails when the server dies: say so. Its backends can see it die (their pipe from it
     * closes) a moment before it can be waited for. */
    int st = 0;
    if (g_server.pid > 0 && wl_wait_exit(g_server.pid, 1000, &st)) {
      char server_how[64], server_tail[1024];
      g_server.pid = 0;
      snprintf(server, sizeof server, "; postgres had ended (%s), %s ends: %s",
               wl_describe_status(st, server_how, sizeof server_how), SERVER_LOG,
               wl_log_tail(SERVER_LOG, 3, server_tail, sizeof server_tail));
    }
    wl_fail("%s ended with %s; %s ends: %s%s", what, how, log,
            wl_log_tail(log, 5, tail, sizeof tail), server);
  }
}

/* Runs argv to its end, stdout and stderr to log; fails unless it exits 0. */
static void run_logged(char *const argv[], const char *log, int as_postgres, const char *what) {
  const pid_t pid = wl_spawn_logged(argv, child(as_postgres, SIGTERM), log);
  check_ok(wl_wait_status(pid, what), what, log);
}

/* SIGQUIT (immediate shutdown: the postmaster stops its children and waits for them), then SIGKILL
 * to the postmaster and its children after QUIT_GRACE_MS. */
static void kill_server(void) {
  if (!wl_stop(g_server.pid, SIGQUIT, QUIT_GRACE_MS, wl_kill_children))
    fprintf(stderr, "postgres: the server ignored SIGQUIT for %d ms; killed\n", QUIT_GRACE_MS);
  g_server.pid = 0;
}

/* Backends a killed or crashed postmaster left behind were reparented to this process (a child
 * subreaper): they are killed and reaped, so no zombie is left to the guest's PID 1. */
static void reap_orphans(void) {
  wl_kill_children(getpid());
  const int64_t deadline = wl_now_ns() + (int64_t)QUIT_GRACE_MS * 1000000;
  while (waitpid(-1, NULL, WNOHANG) >= 0 && wl_now_ns() < deadline) usleep(10000);
}

/* A postmaster that did not shut down cleanly may leave its socket and lock file: removed when the
 * lock file names it. */
static void remove_stale_socket(void) {
  FILE *f = fopen(SOCK_LOCK, "re");
  long pid = 0;
  if (!f) return;
  if (fscanf(f, "%ld", &pid) != 1) pid = 0;
  fclose(f);
  if (pid != (long)g_started) return;
  unlink(SOCK_PATH);
  unlink(SOCK_LOCK);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  if (remove(path) && errno != ENOENT) {
    fprintf(stderr, "postgres: remove %s: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

/* Removes the data directory (retried: killed backends may still be writing to it). */
static void remove_datadir(void) {
  if (!g_datadir[0]) return;
  for (int i = 0; i < 50 && nftw(g_datadir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); i++)
    usleep(100000);
  g_datadir[0] = '\0';
}

/* At exit (also after a FAIL) and after the server's stop. */
static void cleanup(void) {
  if (g_server.pid > 0) kill_server();
  reap_orphans();
  if (g_started && !g_stopped) remove_stale_socket();
  g_started = 0;
  remove_datadir();
}

/* ---------------- the server ---------------- */

/* Line 8 of DIR/postmaster.pid is the postmaster's status: "ready" once it accepts connections (the
 * startup process finished), what pg_ctl -w waits for. */
static int pidfile_ready(void) {
  char path[sizeof g_datadir + 32], line[256];
  snprintf(path, sizeof path, "%s/postmaster.pid", g_datadir);
  FILE *f = fopen(path, "re");
  int n = 0, ready = 0;
  while (f && fgets(line, sizeof line, f))
    if (++n == 8) {
      ready = !strncmp(line, "ready", 5);
      break;
    }
  if (f) fclose(f);
  return ready;
}

static void start_server(uint64_t shared_buffers, long timeout_s) {
  char sb[48];
  snprintf(sb, sizeof sb, "shared_buffers=%" PRIu64 "kB", shared_buffers / 1024);
  /* clang-format off */
  char *argv[] = {PG_BIN "/postgres", "-D", g_datadir,
                  "-c", "huge_pages=off",
                  "-c", sb,
                  "-c", "listen_addresses=",
                  "-c", "unix_socket_directories=" SOCK_DIR,
                  "-c", "fsync=off",
                  "-c", "synchronous_commit=off",
                  "-c", "full_page_writes=off",
                  "-c", "max_connections=20", NULL};
  /* clang-format on */
  /* SIGQUIT: immediate shutdown */
  g_server.pid = g_started = wl_spawn_logged(argv, child(1, SIGQUIT), SERVER_LOG);
  wl_server_await(&g_server, timeout_s, pidfile_ready);
}

/* SIGINT (fast shutdown), then kill_server() after STOP_GRACE_MS. */
static void stop_server(void) {
  if (kill(g_server.pid, SIGINT)) wl_fail("kill postgres: %s", strerror(errno));
  if (wl_wait_exit(g_server.pid, STOP_GRACE_MS, NULL)) {
    g_server.pid = 0;
    g_stopped = 1;
    return;
  }
  fprintf(stderr, "postgres: the server ignored SIGINT for %d ms\n", STOP_GRACE_MS);
  kill_server();
}

/* ---------------- measurements ---------------- */

/* kB of shmem allocated as large folios so far: each hugepages-<size>kB/stats/shmem_alloc times its
 * size, summed; -1 when no size has the counter (CONFIG_TRANSPARENT_HUGEPAGE=n, or a kernel before
 * the per-size stats). */
static long long shmem_mthp_kb(void) {
  DIR *d = opendir(THP_DIR);
  struct dirent *e;
  long long sum = -1;
  while (d && (e = readdir(d))) {
    unsigned long size_kb;
    int end = 0;
    char path[512];
    if (sscanf(e->d_name, "hugepages-%lukB%n", &size_kb, &end) != 1 || !end || e->d_name[end])
      continue;
    snprintf(path, sizeof path, "%s/%s/stats/shmem_alloc", THP_DIR, e->d_name);
    FILE *f = fopen(path, "re");
    long long v;
    if (!f) continue;
    if (fscanf(f, "%lld", &v) == 1) sum = (sum < 0 ? 0 : sum) + v * (long long)size_kb;
    fclose(f);
  }
  if (d) closedir(d);
  return sum;
}

/* kB allocated to the postmaster's shared memory segment, its largest "/dev/zero (deleted)" mapping
 * (MAP_SHARED|MAP_ANONYMOUS): st_blocks of the shmem file behind it, opened through
 * /proc/PID/map_files (root). Pages count whoever touched them, the backends too. -1 if none. */
static long segment_kb(pid_t pid) {
  char path[96], line[512], best[64] = "";
  unsigned long best_len = 0;
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (!strstr(line, " /dev/zero (deleted)") || sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
    if (hi - lo > best_len) {
      best_len = hi - lo;
      snprintf(best, sizeof best, "%lx-%lx", lo, hi);
    }
  }
  if (f) fclose(f);
  if (!best_len) {
    fprintf(stderr, "postgres: no /dev/zero mapping in %s\n", path);
    return -1;
  }
  snprintf(path, sizeof path, "/proc/%d/map_files/%s", (int)pid, best);
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st)) {
    fprintf(stderr, "postgres: %s: %s\n", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  close(fd);
  return (long)(st.st_blocks / 2);
}

/* A meminfo delta as JSON: null when either reading is absent, negative if it shrank. */
static void json_delta(struct wl_json *j, const char *key, long before, long after) {
  if (before < 0 || after < 0)
    wl_json_raw(j, key, "null");
  else
    wl_json_int(j, key, (int64_t)after - before);
}

/* ---------------- pgbench ---------------- */

/* Runs pgbench with argv; its stdout into out (NUL-terminated, at most MAX_OUT bytes), its stderr
 * into BENCH_LOG. Fails unless it exits 0. */
static void run_pgbench(char *const argv[], char *out) {
  check_ok(wl_run_capture(argv, child(0, SIGTERM), BENCH_LOG, out, MAX_OUT), "pgbench", BENCH_LOG);
}

struct result {
  double tps, latency_ms;
  long long processed, expected, failed;
};

/* pgbench 15's summary: "number of transactions actually processed: 1000/1000", "number of failed
 * transactions: 0 (0.000%)", "latency average = 1.234 ms", "tps = 1620.12 (without initial
 * connection time)". Absent values stay NAN / -1. */
static struct result parse_pgbench(char *text) {
  struct result r = {NAN, NAN, -1, -1, -1};
  for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (!strncmp(line, "tps = ", 6) && strstr(line, "(without initial connection time)"))
      sscanf(line + 6, "%lf", &r.tps);
    else if (!strncmp(line, "latency average = ", 18))
      sscanf(line + 18, "%lf", &r.latency_ms);
    else if (sscanf(line, "number of transactions actually processed: %lld/%lld", &r.processed,
                    &r.expected) == 2) {
    } else
      sscanf(line, "number of failed transactions: %lld", &r.failed);
  }
  return r;
}

struct params {
  uint64_t shared_buffers;
  long scale, clients, transactions, seed, start_timeout;
  int mode;
};

static struct params parse_params(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "postgres.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  struct params p = {
      .shared_buffers = wl_arg_size(spec, "shared_buffers"),
      .scale = wl_param_long(spec, "scale"),
      .clients = wl_param_long(spec, "clients"),
      .transactions = wl_param_long(spec, "transactions"),
      .mode = wl_arg_choice(spec, "mode", mode_names),
      .seed = wl_param_long(spec, "seed"),
      .start_timeout = wl_param_long(spec, "start_timeout"),
  };
  if (p.shared_buffers < 16 * PG_BLOCK || p.shared_buffers % PG_BLOCK)
    wl_usage("shared_buffers=%s: expected a multiple of 8K, at least 128K",
             wl_arg_str(spec, "shared_buffers"));
  return p;
}

/* Debian's programs and the postgres user are there, and no server holds the socket. */
static void check_installation(void) {
  static const char *const programs[] = {PG_BIN "/initdb", PG_BIN "/postgres", PG_BIN "/pgbench"};
  for (size_t i = 0; i < sizeof programs / sizeof *programs; i++)
    if (access(programs[i], X_OK))
      wl_fail("%s: %s (Debian's postgresql-15: machine.image debian-postgres)", programs[i],
              strerror(errno));
  FILE *pw_file = fopen("/etc/passwd", "re");
  struct passwd *pw = NULL;
  while (pw_file && (pw = fgetpwent(pw_file)) && strcmp(pw->pw_name, PG_USER)) {
  }
  if (!pw) wl_fail("no user '%s' in /etc/passwd (postgresql-15 creates it)", PG_USER);
  g_uid = pw->pw_uid;
  g_gid = pw->pw_gid;
  fclose(pw_file);
  if (!g_uid) wl_fail("user '%s' is root", PG_USER);
  if (wl_unix_accepts(SOCK_PATH))
    wl_fail("a server already accepts connections on %s: stop it first", SOCK_PATH);
}

/* The children's environment: C messages (parsed here), UTC, no PG* overriding the args; this
 * process reaps orphaned backends (reap_orphans; qemu-user lacks the prctl). */
static void prepare_children(void) {
  setenv("LC_ALL", "C", 1);
  setenv("TZ", "UTC", 1);
  static const char *const pg_env[] = {"PGHOST", "PGPORT",           "PGUSER",    "PGDATABASE",
                                       "PGDATA", "PGOPTIONS",        "PGSERVICE", "PGSSLMODE",
                                       "PGTZ",   "PGCLIENTENCODING", NULL};
  for (int i = 0; pg_env[i]; i++) unsetenv(pg_env[i]);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1))
    fprintf(stderr, "postgres: prctl(PR_SET_CHILD_SUBREAPER): %s\n", strerror(errno));
}

/* A fresh cluster in a new data directory owned by the postgres user. */
static void init_cluster(void) {
  snprintf(g_datadir, sizeof g_datadir, "%s", DATA_TEMPLATE);
  if (!mkdtemp(g_datadir)) {
    int e = errno;
    g_datadir[0] = '\0';
    wl_fail("mkdtemp %s: %s", DATA_TEMPLATE, strerror(e));
  }
  if (chown(g_datadir, g_uid, g_gid)) wl_fail("chown %s: %s", g_datadir, strerror(errno));
  /* clang-format off */
  char *initdb[] = {PG_BIN "/initdb", "-D", g_datadir, "-U", PG_USER, "-A", "trust",
                    "-E", "UTF8", "--locale=C", "-N", NULL};
  /* clang-format on */
  run_logged(initdb, INITDB_LOG, 1, "initdb");
}

/* pgbench -i, then the measured pgbench; its output into out. */
static void run_benchmarks(const struct params *p, char *out) {
  char s_s[24], c_s[24], t_s[24], seed_s[40];
  snprintf(s_s, sizeof s_s, "%ld", p->scale);
  snprintf(c_s, sizeof c_s, "%ld", p->clients);
  snprintf(t_s, sizeof t_s, "%ld", p->transactions);
  snprintf(seed_s, sizeof seed_s, "--random-seed=%ld", p->seed);
  /* clang-format off */
  char *init[] = {PG_BIN "/pgbench", "-i", "-s", s_s, "-h", SOCK_DIR, "-U", PG_USER, PG_USER,
                  NULL};
  char *bench[16] = {PG_BIN "/pgbench", "-h", SOCK_DIR, "-U", PG_USER, "-c", c_s, "-j", "1",
                     "-t", t_s, seed_s};
  /* clang-format on */
  size_t nbench = 12;
  if (!strcmp(mode_names[p->mode], "select-only")) bench[nbench++] = "-S";
  bench[nbench++] = PG_USER; /* the database */
  bench[nbench] = NULL;
  run_logged(init, INIT_LOG, 0, "pgbench -i");
  wl_server_check(&g_server, "during pgbench -i");
  run_pgbench(bench, out);
  wl_server_check(&g_server, "during the benchmark");
}

/* The invariants of a pgbench run that went through. */
static void check_result(const struct result *r, const struct params *p) {
  const long long want = (long long)p->clients * p->transactions;
  if (r->processed != want || r->expected != want)
    wl_fail("pgbench processed %lld/%lld transactions, expected %lld", r->processed, r->expected,
            want);
  if (r->failed > 0) wl_fail("pgbench: %lld failed transactions", r->failed);
  if (!(r->tps > 0) || !isfinite(r->tps)) wl_fail("pgbench printed no positive tps");
  if (!(r->latency_ms >= 0) || !isfinite(r->latency_ms))
    wl_fail("pgbench printed no latency average");
}

int main(int argc, char **argv) {
  const struct params p = parse_params(argc, argv);
  check_installation();
  prepare_children();
  char *out = malloc(MAX_OUT + 1);
  if (!out) wl_fail("out of memory");
  atexit(cleanup);
  init_cluster();

  const long shmem0 = wl_proc_kb("/proc/meminfo", "Shmem");
  const long huge0 = wl_proc_kb("/proc/meminfo", "ShmemHugePages");
  const long long mthp0 = shmem_mthp_kb();
  start_server(p.shared_buffers, p.start_timeout);
  run_benchmarks(&p, out);
  const long rss_kb = wl_pid_kb(g_server.pid, "smaps_rollup", "Rss");
  const long pmd_kb = wl_pid_kb(g_server.pid, "smaps_rollup", "ShmemPmdMapped");
  const long seg_kb = segment_kb(g_server.pid);
  const long shmem1 = wl_proc_kb("/proc/meminfo", "Shmem");
  const long huge1 = wl_proc_kb("/proc/meminfo", "ShmemHugePages");
  const long long mthp1 = shmem_mthp_kb();
  stop_server();
  cleanup();

  const struct result r = parse_pgbench(out);
  struct wl_json j = {.len = 0};
  wl_json_num(&j, "tps", r.tps);
  wl_json_num(&j, "latency_ms", r.latency_ms);
  wl_json_opt(&j, "transactions", r.processed);
  wl_json_kb(&j, "server_rss_kb", rss_kb);
  json_delta(&j, "shmem_kb", shmem0, shmem1);
  json_delta(&j, "shmem_huge_kb", huge0, huge1);
  wl_json_kb(&j, "shmem_pmd_kb", pmd_kb);
  wl_json_kb(&j, "shmem_segment_kb", seg_kb);
  wl_json_opt(&j, "shmem_mthp_kb", mthp0 < 0 || mthp1 < 0 ? -1 : mthp1 - mthp0);
  wl_json_print(&j);
  check_result(&r, &p);
  free(out);
  wl_ok();
  return 0;
}
