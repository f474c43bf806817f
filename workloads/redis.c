/* redis: Debian's redis-server and redis-benchmark over a Unix socket, one server per run.
 *
 * Needs the guest's Debian root filesystem with redis-server and redis-tools (FL_PACKAGES in
 * redis.def); both are found on PATH.
 *
 * Arguments (key=value):
 *   requests=20000     redis-benchmark -n: requests per test
 *   clients=4          redis-benchmark -c: parallel connections
 *   value_size=1024    redis-benchmark -d: bytes of each SET/GET value
 *   keyspace=100000    redis-benchmark -r: random keys drawn from this many
 *   tests=set,get      redis-benchmark -t, blank- or comma-separated: ping (ping_inline and
 *                      ping_mbulk), set, get, incr, lpush, rpush, lpop, rpop, sadd, hset, spop,
 *                      zadd, zpopmin, lrange (lrange_100, _300, _500, _600), mset
 *   preload=0          SET requests (same keyspace and value size) sent before the measured
 *                      benchmark, so that GETs find data; 0: none
 *   disable_thp=true   redis-server --disable-thp yes|no (redis 7.0 then calls
 *                      prctl(PR_SET_THP_DISABLE) on itself when THP `enabled` is `always`)
 *   start_timeout=60   seconds to wait for the server's socket
 *
 * Each run: redis-server --port 0 --unixsocket /tmp/foliolab-redis.sock --save "" --appendonly
 * no --daemonize no --disable-thp yes|no (stdout and stderr to /tmp/foliolab-redis.log), wait
 * until the socket accepts a connection, optionally preload, then `redis-benchmark -s SOCK -n
 * -c -d -r -t --csv`, its CSV read from a pipe. Metrics: <test>_rps per test (requests per
 * second, the CSV's "rps"); the server's THP_enabled (/proc/<pid>/status), Rss and AnonHugePages
 * (/proc/<pid>/smaps_rollup) after the benchmark, while it still holds the data. Then SIGTERM
 * (SIGKILL after 10 s) and the socket is removed.
 * Invariants: the server starts and is still running after the benchmark, redis-benchmark
 * exits 0 and prints a positive rate for every requested test.
 */
#include "common.h"
#include "def_args.h"

#include "app.h"

#include <ctype.h>

#define SOCK_PATH "/tmp/foliolab-redis.sock"
#define SERVER_LOG "/tmp/foliolab-redis.log"
#define BENCH_LOG "/tmp/foliolab-redis-benchmark.log"
#define MAX_CSV ((size_t)1 << 20)
#define STOP_GRACE_MS 10000

/* redis-benchmark 7.0's tests: the -t name, and the metric of its CSV row (the row's name up
 * to the first blank, lower-cased, + "_rps"). `ping` and `lrange` select several rows. */
static const struct rtest {
  const char *name, *metric;
} tests[] = {
    {"ping_inline", "ping_inline_rps"},
    {"ping_mbulk", "ping_mbulk_rps"},
    {"set", "set_rps"},
    {"get", "get_rps"},
    {"incr", "incr_rps"},
    {"lpush", "lpush_rps"},
    {"rpush", "rpush_rps"},
    {"lpop", "lpop_rps"},
    {"rpop", "rpop_rps"},
    {"sadd", "sadd_rps"},
    {"hset", "hset_rps"},
    {"spop", "spop_rps"},
    {"zadd", "zadd_rps"},
    {"zpopmin", "zpopmin_rps"},
    {"lrange_100", "lrange_100_rps"},
    {"lrange_300", "lrange_300_rps"},
    {"lrange_500", "lrange_500_rps"},
    {"lrange_600", "lrange_600_rps"},
    {"mset", "mset_rps"},
};
#define NTESTS (sizeof tests / sizeof *tests)

/* The running redis-server (not reaped): killed at exit (also after wl_fail). */
static struct wl_server g_server = {"redis-server", SERVER_LOG, SOCK_PATH, 0};

static void cleanup(void) { wl_server_stop(&g_server); }

static void start_server(int disable_thp, long timeout_s) {
  if (unlink(SOCK_PATH) && errno != ENOENT) wl_fail("unlink %s: %s", SOCK_PATH, strerror(errno));
  /* clang-format off */
  char *argv[] = {"redis-server", "--port", "0", "--unixsocket", SOCK_PATH, "--save", "",
                  "--appendonly", "no", "--daemonize", "no",
                  "--disable-thp", disable_thp ? "yes" : "no", NULL};
  /* clang-format on */
  g_server.pid = wl_spawn_logged(argv, (struct wl_child){.death_signal = SIGTERM}, SERVER_LOG);
  wl_server_await(&g_server, timeout_s, NULL);
}

/* SIGTERM, then SIGKILL after STOP_GRACE_MS; 1 when the server ended by itself in time. */
static int stop_server(void) { return wl_server_shutdown(&g_server, SIGTERM, STOP_GRACE_MS); }

/* Runs redis-benchmark with argv; its stdout into out (NUL-terminated, at most MAX_CSV bytes),
 * its stderr into BENCH_LOG. Fails unless it exits 0. */
static void run_benchmark(char *const argv[], char *out, const char *what) {
  const int status = wl_run_capture(argv, (struct wl_child){0}, BENCH_LOG, out, MAX_CSV);
  if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    char how[64], tail[1024];
    wl_fail("redis-benchmark (%s) ended with %s; its stderr ends: %s", what,
            wl_describe_status(status, how, sizeof how),
            wl_log_tail(BENCH_LOG, 5, tail, sizeof tail));
  }
}

/* ---------------- CSV ---------------- */

struct row {
  char metric[64];
  double rps;
};

/* One quoted CSV field starting at *p; advances past it and its comma. NULL if malformed. */
static char *csv_field(char **p) {
  char *s = *p;
  if (*s != '"') return NULL;
  char *end = strchr(s + 1, '"');
  if (!end) return NULL;
  *end = '\0';
  *p = end[1] == ',' ? end + 2 : end + 1;
  return s + 1;
}

/* Rows of redis-benchmark --csv: a header "test","rps",... then "SET","12345.68",...; the
 * helper row "LPUSH (needed to benchmark LRANGE)" is left out. */
static size_t parse_csv(char *csv, struct row *rows, size_t max) {
  size_t n = 0;
  for (char *line = csv, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r') line[len - 1] = '\0';
    if (!*line) continue;
    char *p = line, *name = csv_field(&p), *rps = name ? csv_field(&p) : NULL;
    if (!name || !rps) wl_fail("redis-benchmark printed a line that is not CSV: '%.200s'", line);
    if (!strcmp(name, "test")) continue;
    if (strstr(name, "(needed to benchmark")) continue;
    if (n == max) wl_fail("redis-benchmark printed more than %zu tests", max);
    struct row *r = &rows[n];
    size_t k = 0;
    for (; name[k] && name[k] != ' ' && k + 5 < sizeof r->metric; k++) {
      unsigned char c = (unsigned char)name[k];
      r->metric[k] = isalnum(c) ? (char)tolower(c) : '_';
    }
    snprintf(r->metric + k, sizeof r->metric - k, "_rps");
    char *end;
    r->rps = strtod(rps, &end);
    if (end == rps || *end) wl_fail("redis-benchmark: %s: rps '%s' is not a number", name, rps);
    for (size_t i = 0; i < n; i++)
      if (!strcmp(rows[i].metric, r->metric))
        wl_fail("redis-benchmark printed %s twice", r->metric);
    n++;
  }
  return n;
}

static const struct row *find_row(const struct row *rows, size_t n, const char *metric) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(rows[i].metric, metric)) return &rows[i];
  return NULL;
}

/* ---------------- tests= ---------------- */

/* Normalises tests= into redis-benchmark's comma list (lower case) and marks the rows it must
 * print in want[] (indexes into tests[]). */
static void select_tests(const char *arg, char *list, size_t listlen, int want[NTESTS]) {
  char *copy = strdup(arg);
  if (!copy) wl_fail("out of memory");
  size_t len = 0;
  list[0] = '\0';
  for (char *save = NULL, *t = strtok_r(copy, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
    for (char *c = t; *c; c++) *c = (char)tolower((unsigned char)*c);
    int found = 0;
    for (size_t i = 0; i < NTESTS; i++) {
      const char *name = tests[i].name;
      if (!strcmp(t, name) || (!strcmp(t, "ping") && !strncmp(name, "ping_", 5)) ||
          (!strcmp(t, "lrange") && !strncmp(name, "lrange_", 7))) {
        want[i] = 1;
        found = 1;
      }
    }
    if (!found) wl_usage("tests: unknown redis-benchmark test '%s'", t);
    int n = snprintf(list + len, listlen - len, "%s%s", len ? "," : "", t);
    if (n < 0 || (size_t)n >= listlen - len) wl_usage("tests: too long");
    len += (size_t)n;
  }
  free(copy);
  if (!len) wl_usage("tests: no test named");
}

/* redis-benchmark: the preload's SETs (when asked), then the measured tests; the CSV of the
 * last into csv. */
static void run_benchmarks(long requests, long clients, long value_size, long keyspace,
                           long preload, char *list, char *csv) {
  char n_s[24], c_s[24], d_s[24], r_s[24], p_s[24];
  snprintf(n_s, sizeof n_s, "%ld", requests);
  snprintf(c_s, sizeof c_s, "%ld", clients);
  snprintf(d_s, sizeof d_s, "%ld", value_size);
  snprintf(r_s, sizeof r_s, "%ld", keyspace);
  snprintf(p_s, sizeof p_s, "%ld", preload);
  if (preload) {
    /* clang-format off */
    char *pre[] = {"redis-benchmark", "-s", SOCK_PATH, "-n", p_s, "-c", c_s, "-r", r_s,
                   "-d", d_s, "-t", "set", "-q", "--csv", NULL};
    /* clang-format on */
    run_benchmark(pre, csv, "preload");
    wl_server_check(&g_server, "during the preload");
  }
  /* clang-format off */
  char *bench[] = {"redis-benchmark", "-s", SOCK_PATH, "-n", n_s, "-c", c_s, "-d", d_s,
                   "-r", r_s, "-t", list, "--csv", NULL};
  /* clang-format on */
  run_benchmark(bench, csv, "benchmark");
  wl_server_check(&g_server, "during the benchmark");
}

/* Every test asked for printed a positive, finite rate. */
static void check_rows(const struct row *rows, size_t nrows, const int *want, const char *list) {
  for (size_t i = 0; i < NTESTS; i++) {
    if (!want[i]) continue;
    const struct row *r = find_row(rows, nrows, tests[i].metric);
    if (!r) wl_fail("redis-benchmark printed no %s row (tests=%s)", tests[i].name, list);
    if (!(r->rps > 0) || !isfinite(r->rps)) wl_fail("%s is %g", tests[i].metric, r->rps);
  }
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "redis.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const long requests = wl_param_long(spec, "requests");
  const long clients = wl_param_long(spec, "clients");
  const long value_size = wl_param_long(spec, "value_size");
  const long keyspace = wl_param_long(spec, "keyspace");
  const long preload = wl_param_long(spec, "preload");
  const long start_timeout = wl_param_long(spec, "start_timeout");
  const int disable_thp = wl_arg_bool(spec, "disable_thp");
  char list[512];
  int want[NTESTS] = {0};
  select_tests(wl_arg_str(spec, "tests"), list, sizeof list, want);

  char *csv = malloc(MAX_CSV + 1);
  if (!csv) wl_fail("out of memory");

  atexit(cleanup);
  start_server(disable_thp, start_timeout);
  run_benchmarks(requests, clients, value_size, keyspace, preload, list, csv);
  const long thp_enabled = wl_pid_kb(g_server.pid, "status", "THP_enabled");
  const long rss_kb = wl_pid_kb(g_server.pid, "smaps_rollup", "Rss");
  const long huge_kb = wl_pid_kb(g_server.pid, "smaps_rollup", "AnonHugePages");
  stop_server();

  struct row rows[64];
  const size_t nrows = parse_csv(csv, rows, sizeof rows / sizeof *rows);
  struct wl_json j = {.len = 0};
  for (size_t i = 0; i < nrows; i++) wl_json_num(&j, rows[i].metric, rows[i].rps);
  wl_json_opt(&j, "thp_enabled", thp_enabled);
  wl_json_kb(&j, "server_rss_kb", rss_kb);
  wl_json_kb(&j, "server_anon_huge_kb", huge_kb);
  wl_json_print(&j);
  check_rows(rows, nrows, want, list);
  free(csv);
  wl_ok();
  return 0;
}
