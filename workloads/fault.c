/* fault: page-fault throughput, after pft (seed 000's "page fault latency tool").
 *
 * Arguments (key=value):
 *   size=64M        bytes to map and touch (K/M/G suffixes), a multiple of the page size
 *   threads=1       worker threads; each touches its own contiguous share
 *   mapping=anon    anon (MAP_PRIVATE|MAP_ANONYMOUS) | anon-shared (MAP_SHARED|MAP_ANONYMOUS,
 *                   i.e. anonymous shmem) | tmpfs (MAP_SHARED of an ftruncate'd, unlinked file
 *                   on a tmpfs: /tmp if it is one, else a tmpfs this program mounts on
 *                   /tmp/foliolab-tmpfs) | memfd (memfd_create + ftruncate + MAP_SHARED) |
 *                   sysv-shm (shmget + shmat, IPC_RMID right after attaching)
 *   touch=write     write | read: one byte per base page (stride = sysconf page size,
 *                   4K on x86_64 and 4K arm64, 64K on 64K-page arm64)
 *   align=0         start anon / anon-shared mappings on this power-of-two boundary (0: as mmap
 *                   places them)
 *   madvise=none    none | hugepage | nohugepage: madvise() over the whole mapping before
 *                   any touch
 *
 * Measured from the release of the start barrier to after all threads joined:
 *   faults = RUSAGE_SELF ru_minflt delta (all threads), user_s/sys_s = RUSAGE_SELF cpu delta,
 *   cpu_s = CLOCK_PROCESS_CPUTIME_ID delta (exact; the rusage split is by sampled ticks),
 *   wall_s = CLOCK_MONOTONIC. faults_per_sec = pages / wall_s, faults_per_sec_per_cpu =
 *   pages / (user_s + sys_s) (pft's definitions: pages touched, not faults taken).
 * rss_kb, anon_huge_kb and shmem_pmd_kb come from /proc/self/smaps_rollup after touching,
 * while the mapping is still live.
 * Invariants: written bytes read back (write), untouched memory reads zero (read), faults > 0.
 */
#include "common.h"
#include "def_args.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* ---------------- mapping kinds ---------------- */

struct mapping {
  const char *name;
  void *(*map)(size_t len);
  void (*unmap)(void *p, size_t len);
};

static size_t g_align; /* align=: start anonymous mappings on this boundary (0: as mmap gives) */

/* With g_align, maps len + g_align and trims the unaligned head and the tail, so a folio size
 * larger than the kernel's own mapping alignment (e.g. 2M mTHP under 64K base pages, whose PMD
 * is 512M) is not split by an unaligned start. */
static void *mmap_or_fail(size_t len, int flags) {
  size_t extra = g_align;
  unsigned char *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) wl_fail("mmap %zu bytes: %s", len + extra, strerror(errno));
  if (!extra) return p;
  uintptr_t start = ((uintptr_t)p + g_align - 1) & ~(uintptr_t)(g_align - 1);
  size_t head = start - (uintptr_t)p;
  if (head) munmap(p, head);
  if (extra - head) munmap((unsigned char *)start + len, extra - head);
  return (void *)start;
}

static void *map_anon(size_t len) { return mmap_or_fail(len, MAP_PRIVATE | MAP_ANONYMOUS); }

static void *map_anon_shared(size_t len) { return mmap_or_fail(len, MAP_SHARED | MAP_ANONYMOUS); }

static void unmap_plain(void *p, size_t len) {
  if (munmap(p, len)) wl_fail("munmap: %s", strerror(errno));
}

/* MAP_SHARED of fd after ftruncate(len); the mapping keeps the file alive, fd is closed. */
static void *map_fd_shared(int fd, size_t len, const char *what) {
  if (ftruncate(fd, (off_t)len))
    wl_fail("ftruncate %s to %zu bytes: %s", what, len, strerror(errno));
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) wl_fail("mmap %s (%zu bytes): %s", what, len, strerror(errno));
  close(fd);
  return p;
}

static int is_tmpfs(const char *dir) {
  struct statfs st;
  return statfs(dir, &st) == 0 && st.f_type == TMPFS_MAGIC;
}

#define OWN_TMPFS "/tmp/foliolab-tmpfs"
static int g_own_tmpfs; /* this program mounted OWN_TMPFS */

/* A file on a tmpfs: /tmp when it is one (the agent mounts tmpfs there), else our own mount. */
static void *map_tmpfs(size_t len) {
  const char *dir = "/tmp";
  if (!is_tmpfs(dir)) {
    dir = OWN_TMPFS;
    if (mkdir(dir, 0700) && errno != EEXIST) wl_fail("mkdir %s: %s", dir, strerror(errno));
    if (!is_tmpfs(dir)) {
      if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700"))
        wl_fail("/tmp is not a tmpfs and mounting one on %s failed: %s", dir, strerror(errno));
      g_own_tmpfs = 1;
    }
  }
  char path[64];
  snprintf(path, sizeof path, "%s/fault.XXXXXX", dir);
  int fd = mkostemp(path, O_CLOEXEC);
  if (fd < 0) wl_fail("mkostemp %s: %s", path, strerror(errno));
  if (unlink(path)) wl_fail("unlink %s: %s", path, strerror(errno));
  return map_fd_shared(fd, len, path);
}

static void unmap_tmpfs(void *p, size_t len) {
  unmap_plain(p, len);
  if (g_own_tmpfs) {
    if (umount(OWN_TMPFS)) wl_fail("umount %s: %s", OWN_TMPFS, strerror(errno));
    rmdir(OWN_TMPFS);
  }
}

static void *map_memfd(size_t len) {
  int fd = memfd_create("foliolab-fault", MFD_CLOEXEC);
  if (fd < 0) wl_fail("memfd_create: %s", strerror(errno));
  return map_fd_shared(fd, len, "memfd");
}

/* The segment is marked for removal right after attaching: it goes away with the last detach
 * (or the process), never left behind. */
static void *map_sysv_shm(size_t len) {
  int id = shmget(IPC_PRIVATE, len, IPC_CREAT | IPC_EXCL | 0600);
  if (id < 0) wl_fail("shmget %zu bytes: %s", len, strerror(errno));
  void *p = shmat(id, NULL, 0);
  int at_errno = errno;
  if (shmctl(id, IPC_RMID, NULL)) wl_fail("shmctl(IPC_RMID): %s", strerror(errno));
  if (p == (void *)-1) wl_fail("shmat: %s", strerror(at_errno));
  return p;
}

static void unmap_sysv_shm(void *p, size_t len) {
  (void)len;
  if (shmdt(p)) wl_fail("shmdt: %s", strerror(errno));
}

static const struct mapping mappings[] = {
    {"anon", map_anon, unmap_plain},
    {"anon-shared", map_anon_shared, unmap_plain},
    {"tmpfs", map_tmpfs, unmap_tmpfs},
    {"memfd", map_memfd, unmap_plain},
    {"sysv-shm", map_sysv_shm, unmap_sysv_shm},
};
#define NMAPPINGS (sizeof mappings / sizeof *mappings)

/* ---------------- workers ---------------- */

struct worker {
  pthread_t tid;
  volatile unsigned char *base; /* first byte of this worker's share */
  size_t first_page, npages;
  size_t page_size;
  int write;
  unsigned long readsum; /* touch=read: sum of the bytes read */
};

static pthread_barrier_t g_ready, g_go;

/* Value written to page `page` (global index): never 0, so a page that still reads as zero
 * was not written. */
static unsigned char pattern(size_t page) {
  return (unsigned char)(((page * 131) ^ (page >> 8)) | 1);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  pthread_barrier_wait(&g_ready);
  pthread_barrier_wait(&g_go);
  if (w->write) {
    for (size_t i = 0; i < w->npages; i++) w->base[i * w->page_size] = pattern(w->first_page + i);
  } else {
    unsigned long sum = 0;
    for (size_t i = 0; i < w->npages; i++) sum += w->base[i * w->page_size];
    w->readsum = sum;
  }
  return NULL;
}

/* Splits pages into nthreads contiguous shares (the first `pages % n` get one more). */
static struct worker *make_workers(unsigned char *mem, size_t pages, long n, size_t ps, int wr) {
  struct worker *w = calloc((size_t)n, sizeof *w);
  if (!w) wl_fail("calloc: out of memory");
  size_t next = 0;
  for (long i = 0; i < n; i++) {
    size_t share = pages / (size_t)n + ((size_t)i < pages % (size_t)n);
    w[i] = (struct worker){
        .base = mem + next * ps, .first_page = next, .npages = share, .page_size = ps, .write = wr};
    next += share;
  }
  return w;
}

/* ---------------- measurement ---------------- */

struct result {
  struct wl_usage before, after;
  int64_t t0, t1;
};

static void run_workers(struct worker *w, long n, struct result *r) {
  if (pthread_barrier_init(&g_ready, NULL, (unsigned)n + 1) ||
      pthread_barrier_init(&g_go, NULL, (unsigned)n + 1))
    wl_fail("pthread_barrier_init failed");
  for (long i = 0; i < n; i++) {
    int e = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
    if (e) wl_fail("pthread_create: %s", strerror(e));
  }
  pthread_barrier_wait(&g_ready); /* all threads started: their stacks are faulted in */
  r->t0 = wl_now_ns();            /* first, so a vDSO data page fault is not counted */
  r->before = wl_usage_self();
  pthread_barrier_wait(&g_go);
  for (long i = 0; i < n; i++) pthread_join(w[i].tid, NULL);
  r->t1 = wl_now_ns();
  r->after = wl_usage_self();
}

static void verify(const struct worker *w, long n) {
  for (long t = 0; t < n; t++) {
    if (!w[t].write && w[t].readsum) wl_fail("thread %ld read non-zero bytes from fresh memory", t);
    for (size_t i = 0; w[t].write && i < w[t].npages; i++) {
      unsigned char got = w[t].base[i * w[t].page_size];
      unsigned char want = pattern(w[t].first_page + i);
      if (got != want)
        wl_fail("page %zu reads 0x%02x, wrote 0x%02x", w[t].first_page + i, got, want);
    }
  }
}

static void print_metrics(const struct result *r, size_t pages, size_t ps) {
  long faults = r->after.minflt - r->before.minflt;
  double user = r->after.user_s - r->before.user_s;
  double sys = r->after.sys_s - r->before.sys_s;
  double wall = (double)(r->t1 - r->t0) / 1e9;
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "pages", (int64_t)pages);
  wl_json_int(&j, "faults", faults);
  wl_json_num(&j, "user_s", user);
  wl_json_num(&j, "sys_s", sys);
  wl_json_num(&j, "cpu_s", r->after.cpu_s - r->before.cpu_s);
  wl_json_num(&j, "wall_s", wall);
  wl_json_num(&j, "faults_per_sec", wall > 0 ? (double)pages / wall : NAN);
  wl_json_num(&j, "faults_per_sec_per_cpu", user + sys > 0 ? (double)pages / (user + sys) : NAN);
  wl_json_kb(&j, "rss_kb", wl_smaps_rollup_kb("Rss"));
  wl_json_kb(&j, "anon_huge_kb", wl_smaps_rollup_kb("AnonHugePages"));
  wl_json_kb(&j, "shmem_pmd_kb", wl_smaps_rollup_kb("ShmemPmdMapped"));
  wl_json_int(&j, "page_size", (int64_t)ps);
  wl_json_print(&j);
  if (faults <= 0) wl_fail("no minor faults counted (%ld)", faults);
}

int main(int argc, char **argv) {
  static const char *const touches[] = {"write", "read", NULL};
  const char *names[NMAPPINGS + 1];
  for (size_t i = 0; i < NMAPPINGS; i++) names[i] = mappings[i].name;
  names[NMAPPINGS] = NULL;
  struct wl_arg spec[] = {
#include "fault.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  uint64_t size = wl_arg_size(spec, "size");
  long threads = wl_param_long(spec, "threads");
  const struct mapping *m = &mappings[wl_arg_choice(spec, "mapping", names)];
  int write = wl_arg_choice(spec, "touch", touches) == 0;
  int advice = wl_arg_choice(spec, "madvise", wl_madvise_names);
  size_t ps = (size_t)sysconf(_SC_PAGESIZE);
  g_align = (size_t)wl_arg_size(spec, "align");
  if (g_align && (g_align % ps || (g_align & (g_align - 1))))
    wl_usage("align=%zu: must be a power of two and a multiple of the page size %zu", g_align, ps);
  if (size == 0 || size % ps || size > SIZE_MAX / 2)
    wl_usage("size=%" PRIu64 ": must be a non-zero multiple of the page size %zu", size, ps);
  size_t pages = (size_t)size / ps;
  if ((size_t)threads > pages)
    wl_usage("threads=%ld: more threads than pages (%zu)", threads, pages);

  unsigned char *mem = m->map((size_t)size);
  wl_apply_madvise(mem, (size_t)size, advice);
  struct worker *w = make_workers(mem, pages, threads, ps, write);
  struct result r;
  run_workers(w, threads, &r);
  verify(w, threads);
  wl_peak();
  print_metrics(&r, pages, ps);
  m->unmap(mem, (size_t)size);
  free(w);
  wl_ok();
  return 0;
}
