/* Kernel evidence (evidence.h, docs/evidence.md): tracepoints and kprobes counted by hist
 * triggers for the workload's processes only (set_event_pid with options/event-fork), and the
 * function profiler around each rep. */
#define _GNU_SOURCE
#include "evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

#define TRACEFS "/sys/kernel/tracing"
#define MAX_COUNTED 256 /* events after `<system>:*` is expanded, and kprobes */
#define KPROBE_GROUP "foliolab"

/* One hist trigger: on which event's trigger file, the metric it gives, its split field. */
struct counted {
  char *dir;    /* TRACEFS/events/<system>/<event> */
  char *metric; /* event.<system>:<event> or kprobe.<function> */
  char *trigger;
  const char *by; /* NULL: one total */
};
static struct counted counted[MAX_COUNTED];
static size_t ncounted;
static long profile_top;

/* Writes s to path: appended (trigger, kprobe_events) or replacing. 0 or -errno. */
static int write_str(const char *path, const char *s, int append) {
  int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
  if (fd < 0) return -errno;
  ssize_t n = write(fd, s, strlen(s));
  int rc = n < 0 ? -errno : 0;
  close(fd);
  return rc;
}

static void must_write(const char *path, const char *s, int append) {
  int rc = write_str(path, s, append);
  if (rc)
    fail_run("evidence", "kernel %s: writing '%s' to %s: %s", kernel_release(), s, path,
             strerror(-rc));
}

/* Whether `list` (one name a line; a line may go on after a blank: "name [module]") holds name. */
static int has_line(const struct sb *list, const char *name, size_t n) {
  for (const char *l = list->p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (!strncmp(l, name, n) && (l[n] == '\n' || l[n] == ' ' || l[n] == '\0')) return 1;
  return 0;
}

/* Edit distance of a and b (at most 63 bytes each compared), for did-you-mean. */
static int distance(const char *a, size_t la, const char *b, size_t lb) {
  int row[64];
  if (la > 63) la = 63;
  if (lb > 63) lb = 63;
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

/* "; did you mean 'x'?" for the nearest line of list (within a third of the name), or "". */
static void nearest(const struct sb *list, const char *name, char *out, size_t outlen) {
  const size_t n = strlen(name);
  int best = (int)(n / 3 > 2 ? n / 3 : 2) + 1;
  const char *hit = NULL;
  size_t hitlen = 0;
  *out = '\0';
  for (const char *l = list->p; l && *l;) {
    const char *end = l + strcspn(l, " \n");
    int d = distance(name, n, l, (size_t)(end - l));
    if (d < best) best = d, hit = l, hitlen = (size_t)(end - l);
    l = strchr(l, '\n');
    if (l) l++;
  }
  if (hit) snprintf(out, outlen, "; did you mean '%.*s'?", (int)hitlen, hit);
}

static void add_counted(const char *dir, const char *metric, const char *by) {
  if (ncounted >= MAX_COUNTED)
    fail_run("evidence", "more than %d events and kprobes to count", MAX_COUNTED);
  struct sb trig = {0};
  sb_printf(&trig, "hist:keys=%s:vals=hitcount:size=2048", by ? by : "common_pid");
  counted[ncounted++] = (struct counted){xstrdup(dir), xstrdup(metric), trig.p, by};
}

/* The split field must be one of the event's record (its format file names it "<type> by;"). */
static void check_field(const char *dir, const char *event, const char *by) {
  struct sb path = {0}, fmt = {0}, pat = {0};
  sb_printf(&path, "%s/format", dir);
  sb_printf(&pat, " %s;", by);
  if (read_file(path.p, &fmt) == 0 && !strstr(fmt.p, pat.p) && strncmp(by, "common_", 7))
    fail_run("evidence", "kernel %s: event %s has no field '%s' (%s lists its fields)",
             kernel_release(), event, by, path.p);
  sb_free(&path), sb_free(&fmt), sb_free(&pat);
}

/* One `event` line: the event, or every event of the system for `<system>:*`. */
static void add_event(const struct sb *events, const char *name, const char *by) {
  char hint[200], dir[512], metric[300];
  const char *colon = strchr(name, ':');
  if (!strcmp(colon + 1, "*")) {
    const size_t n = (size_t)(colon - name) + 1; /* "system:" */
    size_t before = ncounted;
    for (const char *l = events->p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
      if (strncmp(l, name, n)) continue;
      const int len = (int)strcspn(l, "\n");
      snprintf(dir, sizeof dir, TRACEFS "/events/%.*s/%.*s", (int)n - 1, l, len - (int)n, l + n);
      snprintf(metric, sizeof metric, "event.%.*s", len, l);
      add_counted(dir, metric, NULL);
    }
    if (ncounted == before)
      fail_run("evidence", "kernel %s: no event of system '%.*s' in available_events",
               kernel_release(), (int)n - 1, name);
    return;
  }
  if (!has_line(events, name, strlen(name))) {
    nearest(events, name, hint, sizeof hint);
    fail_run("evidence", "kernel %s: no event '%s' in %s/available_events%s", kernel_release(),
             name, TRACEFS, hint);
  }
  snprintf(dir, sizeof dir, TRACEFS "/events/%.*s/%s", (int)(colon - name), name, colon + 1);
  snprintf(metric, sizeof metric, "event.%s", name);
  if (by) check_field(dir, name, by);
  add_counted(dir, metric, by);
}

/* A kprobe on `fn` as event KPROBE_GROUP/kp<i>: the function must be one the kernel can trace
 * (available_filter_functions); one the kernel inlined into its callers is in neither that list
 * nor /proc/kallsyms. */
static void add_kprobe(const struct sb *functions, const char *fn, size_t i) {
  char hint[200], def[300], dir[300], metric[300];
  if (!has_line(functions, fn, strlen(fn))) {
    struct sb syms = {0}, pat = {0};
    read_file("/proc/kallsyms", &syms);
    sb_printf(&pat, " %s\n", fn);
    const int known = syms.p && strstr(syms.p, pat.p);
    nearest(functions, fn, hint, sizeof hint);
    if (known)
      fail_run("evidence",
               "kernel %s: function %s is in /proc/kallsyms but not in "
               "available_filter_functions: the kernel does not let it be traced (notrace)%s",
               kernel_release(), fn, hint);
    fail_run("evidence",
             "kernel %s: no function %s in available_filter_functions or "
             "/proc/kallsyms: inlined into its callers, or not built into this kernel%s",
             kernel_release(), fn, hint);
  }
  snprintf(def, sizeof def, "p:" KPROBE_GROUP "/kp%zu %s\n", i, fn);
  int rc = write_str(TRACEFS "/kprobe_events", def, 1);
  if (rc)
    fail_run("evidence", "kernel %s: the kernel refuses a kprobe on %s: %s", kernel_release(), fn,
             strerror(-rc));
  snprintf(dir, sizeof dir, TRACEFS "/events/" KPROBE_GROUP "/kp%zu", i);
  snprintf(metric, sizeof metric, "kprobe.%s", fn);
  add_counted(dir, metric, NULL);
}

static void read_list(const char *name, struct sb *out) {
  char path[256];
  snprintf(path, sizeof path, TRACEFS "/%s", name);
  int rc = read_file(path, out);
  if (rc)
    fail_run("evidence", "kernel %s: %s: %s (does the kernel have the tracing fragment?)",
             kernel_release(), path, strerror(-rc));
}

void evidence_setup(const struct evidence *e) {
  if (!evidence_wanted(e)) return;
  if (access(TRACEFS "/available_events", R_OK) && mount("tracefs", TRACEFS, "tracefs", 0, NULL))
    fail_run("evidence", "kernel %s: cannot mount tracefs on %s: %s (no CONFIG_TRACING?)",
             kernel_release(), TRACEFS, strerror(errno));
  struct sb events = {0}, functions = {0};
  read_list("available_events", &events);
  for (size_t i = 0; i < e->nevents; i++) add_event(&events, e->event[i], e->by[i]);
  if (e->nkprobes) read_list("available_filter_functions", &functions);
  for (size_t i = 0; i < e->nkprobes; i++) add_kprobe(&functions, e->kprobe[i], i);
  sb_free(&events), sb_free(&functions);
  must_write(TRACEFS "/options/event-fork", "1\n", 0);
  must_write(TRACEFS "/set_event_pid", "\n", 0);
  profile_top = e->profile_top;
  if (profile_top && access(TRACEFS "/function_profile_enabled", W_OK))
    fail_run("evidence", "kernel %s: no %s/function_profile_enabled (CONFIG_FUNCTION_PROFILER)",
             kernel_release(), TRACEFS);
  log_msg("evidence: %zu hist triggers, function profile top %ld", ncounted, profile_top);
}

void evidence_rep_begin(int pid) {
  char path[600], text[32];
  if (!ncounted && !profile_top) return;
  snprintf(text, sizeof text, "%d\n", pid);
  must_write(TRACEFS "/set_event_pid", text, 0);
  for (size_t i = 0; i < ncounted; i++) {
    snprintf(path, sizeof path, "%s/trigger", counted[i].dir);
    must_write(path, counted[i].trigger, 1);
  }
  if (profile_top) must_write(TRACEFS "/function_profile_enabled", "1\n", 0);
}

void evidence_profile_stop(void) {
  if (profile_top) must_write(TRACEFS "/function_profile_enabled", "0\n", 0);
}

/* A hist key's value as a metric suffix: [A-Za-z0-9_.-] kept, anything else '_'. */
static void key_suffix(struct sb *key, const char *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = v[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.' || c == '-';
    sb_append(key, ok ? &c : "_", 1);
  }
}

/* The hist file of one trigger into `p`: the total, and with a split one line per value. */
static void read_hist(const struct counted *c, struct sb *p) {
  struct sb path = {0}, hist = {0}, key = {0};
  unsigned long long total = 0, dropped = 0;
  sb_printf(&path, "%s/hist", c->dir);
  if (read_file(path.p, &hist))
    fail_run("evidence", "kernel %s: cannot read %s", kernel_release(), path.p);
  for (char *l = hist.p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
    char *hc = strstr(l, "} hitcount:");
    if (!strncmp(l, "    Dropped:", 12)) dropped = strtoull(l + 12, NULL, 10);
    if (strncmp(l, "{ ", 2) || !hc) continue;
    unsigned long long n = strtoull(hc + 11, NULL, 10);
    total += n;
    if (!c->by) continue;
    char *v = strchr(l, ':'); /* "{ order:          4 } hitcount: ..." */
    if (!v || v > hc) continue;
    for (v++; *v == ' '; v++) {
    }
    char *end = hc;
    while (end > v && end[-1] == ' ') end--;
    key.len = 0;
    sb_printf(&key, "%s[%s=", c->metric, c->by);
    key_suffix(&key, v, (size_t)(end - v));
    sb_puts(&key, "]");
    kv_addf(p, key.p, "%llu", n);
  }
  if (dropped)
    fail_run("evidence", "%s: %llu hist entries dropped (more than 2048 keys)", path.p, dropped);
  kv_addf(p, c->metric, "%llu", total);
  sb_free(&path), sb_free(&hist), sb_free(&key);
}

struct fn_hits {
  char name[128];
  unsigned long long hits;
};

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct fn_hits *)a)->name, ((const struct fn_hits *)b)->name);
}

static int by_hits(const void *a, const void *b) {
  const struct fn_hits *x = a, *y = b;
  if (x->hits != y->hits) return x->hits < y->hits ? 1 : -1;
  return strcmp(x->name, y->name);
}

/* Every CPU's trace_stat/function<cpu> rows ("  name  hits  [time ...]"), summed by function
 * and sorted by hits; *n rows. */
static struct fn_hits *read_profile(size_t *n) {
  struct fn_hits *rows = NULL;
  size_t cap = 0;
  *n = 0;
  for (int cpu = 0; cpu < 4096; cpu++) {
    char path[128];
    struct sb f = {0};
    snprintf(path, sizeof path, TRACEFS "/trace_stat/function%d", cpu);
    if (read_file(path, &f)) break;
    for (char *l = f.p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
      struct fn_hits r;
      if (sscanf(l, " %127s %llu", r.name, &r.hits) != 2) continue; /* the header lines */
      if (*n == cap) {
        cap = cap ? cap * 2 : 1024;
        struct fn_hits *more = xmalloc(cap * sizeof *rows);
        if (rows) memcpy(more, rows, *n * sizeof *rows);
        free(rows);
        rows = more;
      }
      rows[(*n)++] = r;
    }
    sb_free(&f);
  }
  if (!*n) return rows;
  qsort(rows, *n, sizeof *rows, by_name);
  size_t out = 0;
  for (size_t i = 1; i < *n; i++) {
    if (!strcmp(rows[i].name, rows[out].name))
      rows[out].hits += rows[i].hits;
    else
      rows[++out] = rows[i];
  }
  *n = out + 1;
  qsort(rows, *n, sizeof *rows, by_hits);
  return rows;
}

/* The profile: its top rows as func.<name> into `p`, all of it as a `function-profile` record. */
static void emit_profile(long rep, struct sb *p) {
  size_t n;
  struct fn_hits *rows = read_profile(&n);
  struct sb all = {0}, key = {0};
  kv_addf(&all, "rep", "%ld", rep);
  for (size_t i = 0; i < n; i++) {
    kv_addf(&all, rows[i].name, "%llu", rows[i].hits);
    if ((long)i >= profile_top) continue;
    key.len = 0;
    sb_printf(&key, "func.%s", rows[i].name);
    kv_addf(p, key.p, "%llu", rows[i].hits);
  }
  record_emit_sb("function-profile", &all);
  free(rows);
  sb_free(&all), sb_free(&key);
}

void evidence_rep_end(long rep) {
  char path[600];
  if (!ncounted && !profile_top) return;
  struct sb p = {0};
  kv_addf(&p, "rep", "%ld", rep);
  for (size_t i = 0; i < ncounted; i++) {
    read_hist(&counted[i], &p);
    snprintf(path, sizeof path, "%s/trigger", counted[i].dir);
    struct sb undo = {0};
    sb_printf(&undo, "!%s", counted[i].trigger);
    must_write(path, undo.p, 1);
    sb_free(&undo);
  }
  if (profile_top) emit_profile(rep, &p);
  record_emit_sb("evidence", &p);
  sb_free(&p);
}
