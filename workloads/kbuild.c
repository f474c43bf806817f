/* kbuild: Ryan Roberts' kernel-build benchmark ("variable-order, large folios for anonymous
 * memory" v6, seed 001: `make defconfig && make -s -j8 Image` in a memory cgroup, kern time
 * and memory.peak at 4K pages with 16K/32K/64K anon folios) cut to minutes: make builds a fixed
 * set of mm/ objects of a kernel tree that is already configured and `make prepare`d, in a
 * cgroup v2 memory cgroup of its own. The compilers' anonymous memory (cc1's heap) is what the
 * anon mTHP knobs act on.
 *
 * Needs the guest's Debian root filesystem images/debian-kbuild.yaml (FL_PACKAGES in
 * kbuild.def): gcc 12, make and linux-source-6.12 unpacked, `make defconfig`d and `make
 * prepare`d at image build time under /usr/src/linux-source-6.12, and cgroup2 with the memory
 * controller on /sys/fs/cgroup.
 *
 * Arguments (key=value):
 *   tree=/usr/src/linux-source-6.12   the prepared tree (.config and
 *                                     include/generated/autoconf.h must exist)
 *   objects=mm/memory.o,...           the objects (blank- or comma-separated, relative to the
 *                                     tree, each ending in .o, no "..")
 *   jobs=2                            make -j
 *   memory_max=0                      the cgroup's memory.max (0: no limit)
 *   drop_caches=true                  sync and write 3 to /proc/sys/vm/drop_caches first
 *
 * Each run: every object and its .cmd file are removed (so each rep compiles them all again),
 * the page cache is dropped, /sys/fs/cgroup/foliolab-kbuild-<pid> is made (memory.max written
 * when given), and a child joins it and execs `make -C TREE -s -j JOBS OBJECTS...` (stdout and
 * stderr to /tmp/foliolab-kbuild.log; LC_ALL=C). After make exits: its wall time, the user and
 * system CPU time of make and everything it waited for (RUSAGE_CHILDREN), and from the cgroup
 * memory.peak and memory.stat's pgfault, pgmajfault and thp_fault_alloc. Invariants: make exits
 * 0 and every object exists afterwards; otherwise the run fails with the end of make's log.
 * The cgroup is removed at the end.
 */
#include "common.h"
#include "def_args.h"

#include "app.h"
#include "cgroup.h"

#include <sys/resource.h>
#include <sys/stat.h>

#define KBUILD_LOG "/tmp/foliolab-kbuild.log"
#define MAX_OBJECTS 64

static struct wl_cg g_cg;

static void cleanup(void) { wl_cg_remove(&g_cg); }

/* Splits list (blank- or comma-separated) into objs; each must end in .o and stay in the tree. */
static int parse_objects(char *list, char **objs) {
  int n = 0;
  for (char *save = NULL, *o = strtok_r(list, " ,\t\n", &save); o;
       o = strtok_r(NULL, " ,\t\n", &save)) {
    const size_t len = strlen(o);
    if (len < 3 || strcmp(o + len - 2, ".o") || o[0] == '/' || strstr(o, ".."))
      wl_usage("objects: '%s' is not an object under the tree (dir/name.o, no '..')", o);
    if (n == MAX_OBJECTS) wl_usage("objects: more than %d", MAX_OBJECTS);
    objs[n++] = o;
  }
  if (!n) wl_usage("objects: none given");
  return n;
}

static void require_prepared(const char *tree) {
  const char *files[] = {".config", "include/generated/autoconf.h", "Makefile"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tree, files[i]);
    if (access(path, R_OK))
      wl_fail("%s: %s (the tree must be configured and `make prepare`d: images/debian-kbuild.yaml)",
              path, strerror(errno));
  }
}

/* Removes obj and its kbuild command file (dir/.name.o.cmd): make then builds it again. */
static void remove_object(const char *tree, const char *obj) {
  char path[512], cmd[512];
  snprintf(path, sizeof path, "%s/%s", tree, obj);
  const char *slash = strrchr(obj, '/');
  const int dirlen = slash ? (int)(slash - obj + 1) : 0;
  snprintf(cmd, sizeof cmd, "%s/%.*s.%s.cmd", tree, dirlen, obj, slash ? slash + 1 : obj);
  if (unlink(path) && errno != ENOENT) wl_fail("unlink %s: %s", path, strerror(errno));
  if (unlink(cmd) && errno != ENOENT) wl_fail("unlink %s: %s", cmd, strerror(errno));
}

static void drop_caches(void) {
  sync();
  const int rc = wl_write_file("/proc/sys/vm/drop_caches", "3");
  if (rc) wl_fail("write 3 to /proc/sys/vm/drop_caches: %s", strerror(-rc));
}

static const char *join_cgroup(void *unused) {
  (void)unused;
  return wl_cg_join_self(&g_cg);
}

struct build {
  double wall_s, user_s, sys_s;
};

/* make in the cgroup, to its end; fails the run with the end of its log unless it exits 0. */
static struct build run_make(char **argv) {
  struct rusage r0, r1;
  if (getrusage(RUSAGE_CHILDREN, &r0)) wl_fail("getrusage: %s", strerror(errno));
  const int64_t t0 = wl_now_ns();
  const pid_t pid = wl_spawn_logged(
      argv, (struct wl_child){.prepare = join_cgroup, .death_signal = SIGKILL}, KBUILD_LOG);
  const int status = wl_wait_status(pid, "make");
  struct build b = {.wall_s = (double)(wl_now_ns() - t0) / 1e9};
  if (getrusage(RUSAGE_CHILDREN, &r1)) wl_fail("getrusage: %s", strerror(errno));
  b.user_s = wl_tv_s(r1.ru_utime) - wl_tv_s(r0.ru_utime);
  b.sys_s = wl_tv_s(r1.ru_stime) - wl_tv_s(r0.ru_stime);
  if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    char how[64], tail[400];
    wl_fail("make failed (%s): %s", wl_describe_status(status, how, sizeof how),
            wl_log_tail(KBUILD_LOG, 3, tail, sizeof tail));
  }
  return b;
}

static void require_built(const char *tree, char **objs, int n) {
  for (int i = 0; i < n; i++) {
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tree, objs[i]);
    if (stat(path, &st)) wl_fail("make exited 0 but %s: %s", path, strerror(errno));
  }
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "kbuild.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const char *tree = wl_arg_str(spec, "tree");
  char list[2048];
  snprintf(list, sizeof list, "%s", wl_arg_str(spec, "objects"));
  char *objs[MAX_OBJECTS];
  const int n = parse_objects(list, objs);
  const long jobs = wl_param_long(spec, "jobs");
  const uint64_t memory_max = wl_arg_size(spec, "memory_max");
  const int drop = wl_arg_bool(spec, "drop_caches");
  require_prepared(tree);

  for (int i = 0; i < n; i++) remove_object(tree, objs[i]);
  if (drop) drop_caches();
  atexit(cleanup);
  wl_cg_create(&g_cg, "foliolab-kbuild");
  if (memory_max) {
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, memory_max);
    const int rc = wl_cg_write(&g_cg, "memory.max", v);
    if (rc) wl_fail("write %s to %s/memory.max: %s", v, g_cg.dir, strerror(-rc));
  }
  if (setenv("LC_ALL", "C", 1)) wl_fail("setenv: %s", strerror(errno));

  char jobs_arg[24];
  snprintf(jobs_arg, sizeof jobs_arg, "-j%ld", jobs);
  char *margv[MAX_OBJECTS + 8] = {"make", "-C", (char *)tree, "-s", jobs_arg};
  for (int i = 0; i < n; i++) margv[5 + i] = objs[i];
  margv[5 + n] = NULL;
  const struct build b = run_make(margv);
  require_built(tree, objs, n);

  const long long peak = wl_cg_number(&g_cg, "memory.peak");
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "objects", n);
  wl_json_num(&j, "wall_s", b.wall_s);
  wl_json_num(&j, "user_s", b.user_s);
  wl_json_num(&j, "sys_s", b.sys_s);
  wl_json_opt(&j, "peak_kb", peak < 0 ? -1 : peak / 1024);
  wl_json_opt(&j, "pgfault", wl_cg_keyed(&g_cg, "memory.stat", "pgfault"));
  wl_json_opt(&j, "pgmajfault", wl_cg_keyed(&g_cg, "memory.stat", "pgmajfault"));
  wl_json_opt(&j, "thp_fault_alloc", wl_cg_keyed(&g_cg, "memory.stat", "thp_fault_alloc"));
  wl_json_print(&j);
  cleanup();
  wl_ok();
  return 0;
}
