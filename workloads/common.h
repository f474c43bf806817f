/* foliolab workloads: shared helpers (header only, C11 + libc).
 *
 * Contract (docs/guest-protocol.md "Workload output"): a workload is a static program taking
 * `key=value` arguments; it prints numeric metrics as one JSON object per line on stdout and,
 * as its last line, FOLIOLAB-WORKLOAD-OK once its own invariants held. Otherwise it prints
 * `FOLIOLAB-WORKLOAD-FAIL <reason>` and exits non-zero: 2 for bad arguments, 1 for a failed
 * invariant or a system error.
 */
#ifndef FOLIOLAB_WORKLOAD_COMMON_H
#define FOLIOLAB_WORKLOAD_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define WL_EXIT_FAIL 1
#define WL_EXIT_USAGE 2

/* ---------------- outcome ---------------- */

static inline _Noreturn void wl_vdie(int code, const char *fmt, va_list ap) {
  fflush(stdout);
  fputs("FOLIOLAB-WORKLOAD-FAIL ", stdout);
  vfprintf(stdout, fmt, ap);
  fputc('\n', stdout);
  fflush(stdout);
  exit(code);
}

/* A failed invariant or system error: FAIL line, exit 1. */
static inline _Noreturn __attribute__((format(printf, 1, 2))) void wl_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wl_vdie(WL_EXIT_FAIL, fmt, ap);
}

/* Bad arguments: FAIL line, exit 2. */
static inline _Noreturn __attribute__((format(printf, 1, 2))) void wl_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wl_vdie(WL_EXIT_USAGE, fmt, ap);
}

/* Last line of a successful run. */
static inline void wl_ok(void) {
  puts("FOLIOLAB-WORKLOAD-OK");
  fflush(stdout);
}

/* ---------------- arguments ---------------- */

/* Argument spec: a table ending with {NULL}. wl_parse_args() fills .val from argv, or
 * from .def when the key is absent. */
struct wl_arg {
  const char *key;
  const char *def;
  const char *val;
  const char *min, *max; /* an INT parameter's bounds, as its .def declares them */
};

/* The program's argument table from its .def (the one source of its parameters, their defaults
 * and bounds; the workload catalog reads the same lines):
 *   struct wl_arg spec[] = {
 *   #include "name.def"
 *       {NULL, NULL, NULL, NULL, NULL},
 *   };
 * after `#include "def_args.h"`, which turns each FL_PARAM line into an entry. */

static inline struct wl_arg *wl_arg_find(struct wl_arg *spec, const char *key, size_t keylen) {
  for (struct wl_arg *a = spec; a->key; a++)
    if (strlen(a->key) == keylen && !strncmp(a->key, key, keylen)) return a;
  return NULL;
}

/* Strict: an argument without '=', an unknown key or a repeated key is a usage failure. */
static inline void wl_parse_args(int argc, char **argv, struct wl_arg *spec) {
  for (struct wl_arg *a = spec; a->key; a++) a->val = NULL;
  for (int i = 1; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    if (!eq) wl_usage("argument '%s' is not key=value", argv[i]);
    struct wl_arg *a = wl_arg_find(spec, argv[i], (size_t)(eq - argv[i]));
    if (!a) wl_usage("unknown argument '%.*s'", (int)(eq - argv[i]), argv[i]);
    if (a->val) wl_usage("argument '%s' given twice", a->key);
    a->val = eq + 1;
  }
  for (struct wl_arg *a = spec; a->key; a++)
    if (!a->val) a->val = a->def;
}

static inline const char *wl_arg_str(struct wl_arg *spec, const char *key) {
  struct wl_arg *a = wl_arg_find(spec, key, strlen(key));
  if (!a) wl_usage("internal: no argument '%s' in spec", key);
  return a->val;
}

/* Whether argv gave key (wl_parse_args points .val at .def otherwise). */
static inline int wl_arg_given(struct wl_arg *spec, const char *key) {
  struct wl_arg *a = wl_arg_find(spec, key, strlen(key));
  if (!a) wl_usage("internal: no argument '%s' in spec", key);
  return a->val != a->def;
}

/* Decimal integer with an optional K, M or G suffix (binary: 1K = 1024). */
static inline int wl_parse_size(const char *s, uint64_t *out) {
  char *end;
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k')
    shift = 10;
  else if (*end == 'M' || *end == 'm')
    shift = 20;
  else if (*end == 'G' || *end == 'g')
    shift = 30;
  if (errno || (shift && end[1]) || (!shift && *end) || v > (UINT64_MAX >> shift)) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

static inline uint64_t wl_arg_size(struct wl_arg *spec, const char *key) {
  uint64_t v;
  const char *s = wl_arg_str(spec, key);
  if (wl_parse_size(s, &v))
    wl_usage("%s=%s: expected bytes with optional K/M/G suffix", key, s ? s : "");
  return v;
}

static inline long wl_arg_long(struct wl_arg *spec, const char *key, long lo, long hi) {
  const char *s = wl_arg_str(spec, key);
  char *end;
  errno = 0;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || *end || errno || v < lo || v > hi)
    wl_usage("%s=%s: expected an integer in %ld..%ld", key, s ? s : "", lo, hi);
  return v;
}

/* An INT parameter within the bounds of its .def (the entry's min and max). */
static inline long wl_param_long(struct wl_arg *spec, const char *key) {
  struct wl_arg *a = wl_arg_find(spec, key, strlen(key));
  if (!a || !a->min || !a->max || !*a->min || !*a->max)
    wl_usage("internal: no bounds for argument '%s' in spec", key);
  return wl_arg_long(spec, key, strtol(a->min, NULL, 10), strtol(a->max, NULL, 10));
}

/* A BOOL parameter as foliolab passes it (1 or 0) or as a person writes it (true, yes, on, false,
 * no, off): 1 or 0, -1 for anything else. */
static inline int wl_parse_bool(const char *s) {
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off"};
  for (int i = 0; s && i < 4; i++) {
    if (!strcmp(s, yes[i])) return 1;
    if (!strcmp(s, no[i])) return 0;
  }
  return -1;
}

/* A BOOL parameter: 1 or 0; anything else is a usage error. */
static inline int wl_arg_bool(struct wl_arg *spec, const char *key) {
  const char *s = wl_arg_str(spec, key);
  const int v = wl_parse_bool(s);
  if (v < 0) wl_usage("%s=%s: expected true or false (1/0, yes/no, on/off)", key, s);
  return v;
}

/* Index of the value in choices (a NULL-terminated list). */
static inline int wl_arg_choice(struct wl_arg *spec, const char *key, const char *const *choices) {
  const char *s = wl_arg_str(spec, key);
  for (int i = 0; s && choices[i]; i++)
    if (!strcmp(s, choices[i])) return i;
  wl_usage("%s=%s: not a known value", key, s ? s : "");
}

/* ---------------- time and rusage ---------------- */

static inline int64_t wl_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline double wl_tv_s(struct timeval tv) {
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Process-wide (all threads, RUSAGE_SELF) counters at one instant. cpu_s is the process's CPU
 * time from CLOCK_PROCESS_CPUTIME_ID: the scheduler's exact runtime of all threads, where the
 * user/system split of getrusage is that runtime cut by sampled ticks (cputime_adjust), so
 * user_s and sys_s move by a tick between identical runs even under QEMU's -icount. */
struct wl_usage {
  long minflt, majflt;
  double user_s, sys_s, cpu_s;
};

static inline struct wl_usage wl_usage_self(void) {
  struct rusage ru;
  struct timespec cpu;
  if (getrusage(RUSAGE_SELF, &ru)) wl_fail("getrusage: %s", strerror(errno));
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu))
    wl_fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID): %s", strerror(errno));
  return (struct wl_usage){ru.ru_minflt, ru.ru_majflt, wl_tv_s(ru.ru_utime), wl_tv_s(ru.ru_stime),
                           (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9};
}

/* ---------------- /proc readers ---------------- */

/* The number after `key` and sep at the start of a line of the file at path ("Field:   123 kB"
 * with ':', "name 123" with ' '), or -1 if absent/unreadable. */
static inline long long wl_keyed(const char *path, const char *key, char sep) {
  FILE *f = fopen(path, "re");
  char line[256];
  long long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == sep) {
      v = strtoll(line + n + 1, NULL, 10);
      break;
    }
  if (f) fclose(f);
  return v;
}

/* Value in kB of a "Field:   123 kB" line of a /proc file, or -1 if absent/unreadable. */
static inline long wl_proc_kb(const char *path, const char *field) {
  return (long)wl_keyed(path, field, ':');
}

/* Rss, Pss, AnonHugePages, ShmemPmdMapped, ... summed over the whole address space
 * (needs CONFIG_PROC_PAGE_MONITOR). */
static inline long wl_smaps_rollup_kb(const char *field) {
  return wl_proc_kb("/proc/self/smaps_rollup", field);
}

/* The workload's peak, for the agent's folio census (docs/evidence.md "Folio census"): when the
 * job asked for one, the agent names two pipes in FOLIOLAB_CENSUS_FD and FOLIOLAB_CENSUS_ACK_FD;
 * this writes "peak" to the first and waits for the agent's byte on the second, which comes once
 * the agent has walked this process's mappings. Called where smaps_rollup is read, after the
 * measured phase, while the memory is still mapped (the FL_PEAK line of the workload's .def says
 * where). Without a census: nothing. */
static inline void wl_peak(void) {
  const char *e = getenv("FOLIOLAB_CENSUS_FD"), *a = getenv("FOLIOLAB_CENSUS_ACK_FD");
  if (!e || !*e || !a || !*a) return;
  const int fd = atoi(e), ack_fd = atoi(a);
  static const char msg[] = "peak\n";
  if (write(fd, msg, sizeof msg - 1) != (ssize_t)(sizeof msg - 1))
    wl_fail("census: telling the agent of the peak on fd %d: %s", fd, strerror(errno));
  char ack;
  ssize_t n;
  while ((n = read(ack_fd, &ack, 1)) < 0 && errno == EINTR) continue;
  if (n != 1) wl_fail("census: no answer from the agent on fd %d", ack_fd);
}

/* VmRSS, VmHWM, ... of /proc/self/status. */
static inline long wl_status_kb(const char *field) {
  return wl_proc_kb("/proc/self/status", field);
}

/* A counter of /proc/vmstat ("name value" lines), or -1 if the kernel lacks it (e.g.
 * CONFIG_VM_EVENT_COUNTERS=n, or a counter a patch adds). */
static inline long long wl_vmstat(const char *name) { return wl_keyed("/proc/vmstat", name, ' '); }

/* Delta of two wl_vmstat() readings, -1 when either is absent. */
static inline long long wl_delta(long long before, long long after) {
  return before < 0 || after < 0 ? -1 : after - before;
}

/* A file holding one number (memory.peak, khugepaged/full_scans), or -1 when absent or not a
 * number. */
static inline long long wl_read_number(const char *path) {
  FILE *f = fopen(path, "re");
  long long v = -1;
  if (f) {
    if (fscanf(f, "%lld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

/* At most len - 1 bytes of the file at path into buf, NUL-terminated: their count, or -1 when
 * it cannot be opened. */
static inline long wl_read_text(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = '\0';
  return (long)n;
}

/* Writes s to path with one write() (like `echo`). 0 or -errno. */
static inline int wl_write_file(const char *path, const char *s) {
  FILE *f = fopen(path, "we");
  if (!f) return -errno;
  int rc = fputs(s, f) < 0 ? -errno : 0;
  if (fclose(f) && !rc) rc = -errno;
  return rc;
}

/* PMD (huge page) size from sysfs, or fallback when THP is not configured. */
static inline size_t wl_pmd_size(size_t fallback) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
  unsigned long long v = 0;
  if (f) {
    if (fscanf(f, "%llu", &v) != 1) v = 0;
    fclose(f);
  }
  return v ? (size_t)v : fallback;
}

/* ---------------- madvise argument ---------------- */

/* Values of a `madvise=` argument, index = wl_arg_choice() result. */
static const char *const wl_madvise_names[] = {"none", "hugepage", "nohugepage", NULL};

/* Applies choice (an index into wl_madvise_names) to [p, p+len); none does nothing. */
static inline void wl_apply_madvise(void *p, size_t len, int choice) {
  static const int advice[] = {0, MADV_HUGEPAGE, MADV_NOHUGEPAGE};
  if (choice > 0 && madvise(p, len, advice[choice]))
    wl_fail("madvise(%s): %s", wl_madvise_names[choice], strerror(errno));
}

/* ---------------- JSON metrics line ---------------- */

/* One `{"k":v,...}` line. Numbers only; a value that cannot be computed (non-finite double,
 * negative "absent" kB from the /proc readers via wl_json_kb) is written as null. */
struct wl_json {
  char buf[4096];
  size_t len;
};

static inline void wl_json_raw(struct wl_json *j, const char *key, const char *val) {
  int n = snprintf(j->buf + j->len, sizeof j->buf - j->len, "%s\"%s\":%s", j->len ? "," : "{", key,
                   val);
  if (n < 0 || (size_t)n >= sizeof j->buf - j->len - 2) wl_fail("internal: metrics line too long");
  j->len += (size_t)n;
}

static inline void wl_json_int(struct wl_json *j, const char *key, int64_t v) {
  char s[32];
  snprintf(s, sizeof s, "%" PRId64, v);
  wl_json_raw(j, key, s);
}

static inline void wl_json_num(struct wl_json *j, const char *key, double v) {
  char s[40];
  if (isfinite(v))
    snprintf(s, sizeof s, "%.9g", v);
  else
    snprintf(s, sizeof s, "null");
  wl_json_raw(j, key, s);
}

static inline void wl_json_kb(struct wl_json *j, const char *key, long kb) {
  if (kb < 0)
    wl_json_raw(j, key, "null");
  else
    wl_json_int(j, key, kb);
}

/* An integer that is null when negative ("absent", e.g. wl_vmstat() = -1). */
static inline void wl_json_opt(struct wl_json *j, const char *key, long long v) {
  if (v < 0)
    wl_json_raw(j, key, "null");
  else
    wl_json_int(j, key, v);
}

static inline void wl_json_print(struct wl_json *j) {
  printf("%s}\n", j->len ? j->buf : "{");
  fflush(stdout);
  j->len = 0;
}

#endif
