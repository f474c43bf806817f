/* foliolab workloads: a cgroup v2 memory cgroup of one's own (memcg-stress, kbuild). Header
 * only, C11 + libc, included after common.h.
 *
 * wl_cg_create() checks that /sys/fs/cgroup is cgroup2 with the memory controller, enables
 * +memory in the root's cgroup.subtree_control when it is not, and makes
 * /sys/fs/cgroup/<prefix>-<pid>; wl_cg_remove() kills what is left in it, removes it and
 * disables +memory again if wl_cg_create() enabled it. A child joins it with
 * wl_cg_join_self() before its exec. Its files are read with wl_cg_keyed() (memory.stat,
 * memory.events) and wl_cg_number() (memory.peak).
 */
#ifndef FOLIOLAB_WORKLOAD_CGROUP_H
#define FOLIOLAB_WORKLOAD_CGROUP_H

#include "common.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define WL_CG_ROOT "/sys/fs/cgroup"

struct wl_cg {
  char dir[64];       /* the cgroup's directory; "" when there is none */
  int enabled_memory; /* wl_cg_create wrote +memory to the root's subtree_control */
};

static inline void wl_cg_path(const struct wl_cg *cg, char *out, size_t len, const char *file) {
  snprintf(out, len, "%s/%s", cg->dir, file);
}

/* A "key value" line of a flat-keyed cgroup file (memory.stat, memory.events), or -1. */
static inline long long wl_cg_keyed(const struct wl_cg *cg, const char *file, const char *key) {
  char path[128];
  wl_cg_path(cg, path, sizeof path, file);
  return wl_keyed(path, key, ' ');
}

/* A single-number cgroup file (memory.peak), or -1 when absent. */
static inline long long wl_cg_number(const struct wl_cg *cg, const char *file) {
  char path[128];
  wl_cg_path(cg, path, sizeof path, file);
  return wl_read_number(path);
}

static inline int wl_cg_write(const struct wl_cg *cg, const char *file, const char *value) {
  char path[128];
  wl_cg_path(cg, path, sizeof path, file);
  return wl_write_file(path, value);
}

/* Whether the blank-separated list in path holds word. */
static inline int wl_file_has_word(const char *path, const char *word) {
  char buf[1024];
  if (wl_read_text(path, buf, sizeof buf) < 0) return 0;
  for (char *save = NULL, *w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
    if (!strcmp(w, word)) return 1;
  return 0;
}

/* SIGKILL to every process in the cgroup (cgroup.kill, Linux 5.14+, and each pid of
 * cgroup.procs for older kernels). */
static inline void wl_cg_kill_all(const struct wl_cg *cg) {
  char path[128], line[32];
  wl_cg_write(cg, "cgroup.kill", "1");
  wl_cg_path(cg, path, sizeof path, "cgroup.procs");
  FILE *f = fopen(path, "re");
  while (f && fgets(line, sizeof line, f)) {
    pid_t pid = (pid_t)strtol(line, NULL, 10);
    if (pid > 0) kill(pid, SIGKILL);
  }
  if (f) fclose(f);
}

/* Kills what is left in the cgroup, removes it (dying tasks keep it busy for a moment) and
 * disables the memory controller again if wl_cg_create enabled it. Safe to call twice (at exit,
 * so also after a FAIL); problems are reported on stderr. */
static inline void wl_cg_remove(struct wl_cg *cg) {
  if (cg->dir[0]) {
    wl_cg_kill_all(cg);
    int rc = -1;
    for (int i = 0; i < 200 && (rc = rmdir(cg->dir)) && errno == EBUSY; i++) usleep(10000);
    if (rc && errno != ENOENT) fprintf(stderr, "rmdir %s: %s\n", cg->dir, strerror(errno));
    cg->dir[0] = '\0';
  }
  if (cg->enabled_memory) {
    int rc = wl_write_file(WL_CG_ROOT "/cgroup.subtree_control", "-memory");
    if (rc)
      fprintf(stderr, "-memory in %s/cgroup.subtree_control: %s\n", WL_CG_ROOT, strerror(-rc));
    cg->enabled_memory = 0;
  }
}

/* Makes /sys/fs/cgroup/<prefix>-<pid> with the memory controller; fails the run when it
 * cannot. */
static inline void wl_cg_create(struct wl_cg *cg, const char *prefix) {
  struct statfs st;
  if (statfs(WL_CG_ROOT, &st)) wl_fail("statfs %s: %s", WL_CG_ROOT, strerror(errno));
  if ((unsigned long)st.f_type != CGROUP2_SUPER_MAGIC)
    wl_fail("%s is not a cgroup2 mount (f_type 0x%lx)", WL_CG_ROOT, (unsigned long)st.f_type);
  if (!wl_file_has_word(WL_CG_ROOT "/cgroup.controllers", "memory"))
    wl_fail("no memory controller in %s/cgroup.controllers (CONFIG_MEMCG, or bound to cgroup v1)",
            WL_CG_ROOT);
  if (!wl_file_has_word(WL_CG_ROOT "/cgroup.subtree_control", "memory")) {
    int rc = wl_write_file(WL_CG_ROOT "/cgroup.subtree_control", "+memory");
    if (rc) wl_fail("+memory in %s/cgroup.subtree_control: %s", WL_CG_ROOT, strerror(-rc));
    cg->enabled_memory = 1;
  }
  snprintf(cg->dir, sizeof cg->dir, "%s/%s-%d", WL_CG_ROOT, prefix, (int)getpid());
  if (mkdir(cg->dir, 0755) && (errno != EEXIST || rmdir(cg->dir) || mkdir(cg->dir, 0755))) {
    int e = errno;
    char name[64];
    snprintf(name, sizeof name, "%s", cg->dir);
    cg->dir[0] = '\0'; /* not ours */
    wl_fail("mkdir %s: %s", name, strerror(e));
  }
}

/* In a child before its exec: moves it into the cgroup. NULL, or the step that failed (errno
 * set), as struct wl_child's prepare returns. */
static inline const char *wl_cg_join_self(const struct wl_cg *cg) {
  static char path[128];
  char pid[24];
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  wl_cg_path(cg, path, sizeof path, "cgroup.procs");
  int rc = wl_write_file(path, pid);
  if (rc) {
    errno = -rc;
    return path;
  }
  return NULL;
}

#endif
