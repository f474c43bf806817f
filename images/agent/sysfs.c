/* THP knobs, sysctls and kernel counters (docs/guest-protocol.md "Payloads"). */
#define _GNU_SOURCE
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "record.h"

/* Files with no read permission bit (sysfs/procfs write-only attributes such as
 * vm/drop_caches) fail with EACCES even for root: treat them as write-only. */
static int is_write_only(const struct stat *st) {
  return (st->st_mode & (S_IRUSR | S_IRGRP | S_IROTH)) == 0;
}

/* ---------------- knobs dump ---------------- */

static void join_path(struct sb *out, const char *a, const char *b) {
  out->len = 0;
  if (*a)
    sb_printf(out, "%s/%s", a, b);
  else
    sb_puts(out, b);
}

/* Adds every readable file below THP_DIR/rel to payload, sorted by name; `stats`
 * directories (counters, not knobs) are skipped. */
static void dump_dir(struct sb *payload, const char *rel) {
  struct sb dir = {0}, relchild = {0}, full = {0}, val = {0};
  join_path(&dir, THP_DIR, rel); /* "THP_DIR/" for the top level: fine for scandir */
  struct dirent **ents;
  int n = scandir(dir.p, &ents, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = ents[i]->d_name;
    struct stat st;
    join_path(&relchild, rel, name);
    join_path(&full, THP_DIR, relchild.p);
    if (name[0] == '.' || lstat(full.p, &st)) continue;
    if (S_ISDIR(st.st_mode) && strcmp(name, "stats"))
      dump_dir(payload, relchild.p);
    else if (S_ISREG(st.st_mode) && !is_write_only(&st)) {
      int rc = read_file(full.p, &val);
      strip_newlines(&val);
      if (rc)
        log_msg("knobs: cannot read %s: %s", full.p, strerror(-rc));
      else
        kv_add(payload, relchild.p, val.p);
    }
  }
  for (int i = 0; i < n; i++) free(ents[i]);
  if (n >= 0) free(ents);
  sb_free(&dir), sb_free(&relchild), sb_free(&full), sb_free(&val);
}

void knobs_dump(const char *phase) {
  struct sb p = {0};
  kv_add(&p, "phase", phase);
  dump_dir(&p, "");
  record_emit_sb("knobs", &p);
  sb_free(&p);
}

/* ---------------- knob / sysctl apply ---------------- */

/* "always inherit madvise [never]" -> "never"; content without brackets is returned whole. */
static char *selected_value(const char *raw) {
  const char *l = strchr(raw, '['), *r = l ? strchr(l, ']') : NULL;
  if (!l || !r) return xstrdup(raw);
  size_t n = (size_t)(r - l - 1);
  char *s = xmalloc(n + 1);
  memcpy(s, l + 1, n);
  s[n] = '\0';
  return s;
}

struct apply {
  const char *status; /* ok / missing / write-failed / mismatch */
  int err;            /* errno of the failure, 0 if none */
  struct sb raw;
  char *readback;
};

/* Writes value + "\n" in one write() (sysfs/procfs stores take one buffer per write, and
 * accept a trailing newline like `echo` sends), then reads the file back. */
static void apply_file(const char *full, const char *value, struct apply *a) {
  struct stat st;
  if (stat(full, &st)) {
    a->err = errno;
    a->status = errno == ENOENT ? "missing" : "write-failed";
    return;
  }
  int fd = open(full, O_WRONLY | O_CLOEXEC);
  size_t n = strlen(value);
  char *line = xmalloc(n + 2);
  memcpy(line, value, n);
  memcpy(line + n, "\n", 2);
  ssize_t w = fd < 0 ? -1 : write(fd, line, n + 1);
  a->err = w < 0 ? errno : 0;
  if (fd >= 0) close(fd);
  free(line);
  if (w != (ssize_t)(n + 1)) {
    a->err = a->err ? a->err : EIO;
    a->status = "write-failed";
    return;
  }
  a->status = "ok";
  if (is_write_only(&st)) return; /* nothing to read back: readback and raw stay empty */
  int rc = read_file(full, &a->raw);
  strip_newlines(&a->raw);
  a->readback = selected_value(a->raw.p);
  if (rc) {
    a->err = -rc;
    a->status = "mismatch";
  } else if (strcmp(a->readback, value)) {
    a->status = "mismatch";
  }
}

/* Where a job's knob or sysctl line writes, and how it is named in records and messages. */
struct target {
  const char *stage; /* error stage */
  const char *dir;
  const char *prefix; /* of the path shown in `knob-set` */
};
static const struct target knob_target = {"knob", THP_DIR, ""};
static const struct target sysctl_target = {"sysctl", SYSCTL_DIR, "sysctl:"};

static _Noreturn void report_failure(const char *stage, const char *value, const char *full,
                                     const struct apply *a) {
  const char *rel = kernel_release();
  if (!strcmp(a->status, "missing")) fail_run(stage, "kernel %s: %s does not exist", rel, full);
  if (!strcmp(a->status, "write-failed"))
    fail_run(stage, "kernel %s: writing '%s' to %s failed: %s", rel, value, full, strerror(a->err));
  if (a->err) fail_run(stage, "kernel %s: reading back %s failed: %s", rel, full, strerror(a->err));
  fail_run(stage, "kernel %s: %s reads '%s' (selected '%s') after writing '%s'", rel, full,
           a->raw.p, a->readback, value);
}

/* Emits `knob-set`; on any failure also `error`, `done failed` and powers off. */
static void set_file(const struct target *t, const char *path, const char *value) {
  struct sb full = {0}, shown = {0}, p = {0};
  struct apply a = {0};
  sb_printf(&full, "%s/%s", t->dir, path);
  sb_printf(&shown, "%s%s", t->prefix, path);
  apply_file(full.p, value, &a);
  log_msg("set %s = '%s': %s", shown.p, value, a.status);
  kv_add(&p, "path", shown.p);
  kv_add(&p, "requested", value);
  kv_add(&p, "readback", a.readback ? a.readback : "");
  kv_add(&p, "raw", a.raw.p ? a.raw.p : "");
  kv_add(&p, "status", a.status);
  if (a.err) kv_add(&p, "error", strerror(a.err));
  record_emit_sb("knob-set", &p);
  if (strcmp(a.status, "ok")) report_failure(t->stage, value, full.p, &a);
  free(a.readback);
  sb_free(&a.raw), sb_free(&full), sb_free(&shown), sb_free(&p);
}

void knob_set(const char *path, const char *value) { set_file(&knob_target, path, value); }

void sysctl_set(const char *path, const char *value) { set_file(&sysctl_target, path, value); }

/* ---------------- counters ---------------- */

/* Every /proc/vmstat line is recorded, so that a counter a patch series adds shows up
 * without changing the agent.
 * Kernel quirk: without CONFIG_VM_EVENT_COUNTERS (tinyconfig) /proc/vmstat has no thp_* or
 * pgfault lines at all; they are then simply absent from the record. */
static void add_vmstat(struct sb *p) {
  struct sb f = {0};
  int rc = read_file("/proc/vmstat", &f);
  if (rc) fail_run("counters", "cannot read /proc/vmstat: %s", strerror(-rc));
  char name[128], key[160];
  unsigned long long v;
  for (char *line = f.p; line && *line;) {
    if (sscanf(line, "%127s %llu", name, &v) == 2) {
      snprintf(key, sizeof key, "vmstat.%s", name);
      kv_addf(p, key, "%llu", v);
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  sb_free(&f);
}

static void add_mthp_size(struct sb *p, const char *dirname) {
  struct sb dir = {0}, path = {0}, val = {0}, key = {0};
  sb_printf(&dir, "%s/%s/stats", THP_DIR, dirname);
  const char *size = dirname + strlen("hugepages-"); /* "64kB" */
  struct dirent **ents;
  int n = scandir(dir.p, &ents, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = ents[i]->d_name;
    path.len = 0;
    sb_printf(&path, "%s/%s", dir.p, name);
    if (name[0] != '.' && read_file(path.p, &val) == 0) {
      strip_newlines(&val);
      key.len = 0;
      sb_printf(&key, "mthp.%s.%s", size, name);
      kv_add(p, key.p, val.p);
    }
    free(ents[i]);
  }
  if (n >= 0) free(ents);
  sb_free(&dir), sb_free(&path), sb_free(&val), sb_free(&key);
}

static void add_mthp(struct sb *p) {
  struct dirent **ents;
  int n = scandir(THP_DIR, &ents, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = ents[i]->d_name;
    size_t len = strlen(name);
    if (!strncmp(name, "hugepages-", 10) && len > 12 && !strcmp(name + len - 2, "kB"))
      add_mthp_size(p, name);
    free(ents[i]);
  }
  if (n >= 0) free(ents);
}

static void add_meminfo(struct sb *p) {
  static const char *const wanted[] = {"MemFree", "AnonPages", "AnonHugePages", "ShmemHugePages",
                                       "Shmem",   "SwapTotal", "SwapFree"};
  struct sb f = {0};
  if (read_file("/proc/meminfo", &f)) fail_run("counters", "cannot read /proc/meminfo");
  char name[64], key[96];
  unsigned long long v;
  for (char *line = f.p; line && *line;) {
    if (sscanf(line, "%63[^:]: %llu", name, &v) == 2)
      for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++)
        if (!strcmp(name, wanted[i])) {
          snprintf(key, sizeof key, "meminfo.%s", name);
          kv_addf(p, key, "%llu", v);
        }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  sb_free(&f);
}

void counters_snapshot(long rep, const char *phase) {
  struct sb p = {0};
  kv_addf(&p, "rep", "%ld", rep);
  kv_add(&p, "phase", phase);
  add_vmstat(&p);
  add_mthp(&p);
  add_meminfo(&p);
  record_emit_sb("counters", &p);
  sb_free(&p);
}
