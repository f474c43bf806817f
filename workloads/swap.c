/* swap: writes `size` bytes of anonymous memory under a memory limit below size, so reclaim
 * swaps most of it out while it is written, then reads it all back (swapping it in) and checks
 * every word. Swap-out and swap-in bandwidth as the workload sees them.
 *
 * Arguments (key=value):
 *   size=64M        bytes to write and read back, a multiple of the page size
 *   fill=random     random: every 8-byte word from a generator (incompressible) | compressible:
 *                   half of each page random, half zeros (zram or zswap compress it about 2:1) |
 *                   same: each page one word repeated (zram keeps such a page as that word)
 *   madvise=none    none | hugepage | nohugepage over the mapping before it is written
 *   memory_max=0    the limit: 0 runs in the cgroup the agent put it in (the experiment's
 *                   `cgroup:`); else a cgroup of its own, /sys/fs/cgroup/foliolab-swap-<pid>,
 *                   with this memory.max (refused at plan under `cgroup:`)
 *
 * The work runs in a child (joining its own cgroup first when memory_max is given), so an OOM
 * kill is a FAIL with its reason. It needs swap (SwapTotal > 0) and a memory.max or memory.high
 * below size in its cgroup (both fail the run before anything is written: without them nothing
 * swaps). Phases, each timed with CLOCK_MONOTONIC and the /proc/vmstat counters read around it:
 *   write: one pass over the mapping writing every word (the faults, the reclaim that makes
 *          room and its swap-outs happen inside it);
 *   read:  one pass reading every word back and comparing it with what was written (the
 *          swap-ins of what was swapped out happen inside it).
 * Metrics: size_kb, limit_kb (the lower of memory.max and memory.high), write_s, read_s,
 *   write_mib_s and read_mib_s (size / phase time), swapout_kb (pswpout + zswpout of the write
 *   phase, in kB), swapin_kb (pswpin + zswpin of the read phase), swapout_mib_s (swapout_kb /
 *   write_s) and swapin_mib_s (swapin_kb / read_s), swapped_fraction (swapout_kb / size_kb),
 *   majflt (major faults of the read phase), peak_kb (the cgroup's memory.peak; null before
 *   Linux 5.19), checksum (low 32 bits of the words' 64-bit checksum, the same written and read)
 *   and checksum_ok (1). The per-size counters (mthp.64kB.swpout, swpout_fallback, swpin) are
 *   the agent's counter deltas of the rep.
 * Invariants: every word reads back as written; something was swapped out (swapout_kb > 0).
 */
#include "common.h"
#include "def_args.h"

#include "app.h"
#include "cgroup.h"

static struct wl_cg g_cg; /* memory_max: our cgroup */
static pid_t g_cg_owner;  /* the parent: the writer (a child in the cgroup) must not remove it */

static void cleanup(void) {
  if (getpid() == g_cg_owner) wl_cg_remove(&g_cg);
}

static uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

enum fill { FILL_RANDOM, FILL_COMPRESSIBLE, FILL_SAME };

/* Word w of page p. */
static inline uint64_t word(int fill, size_t p, size_t w, size_t words_per_page) {
  switch (fill) {
    case FILL_COMPRESSIBLE:
      return w < words_per_page / 2 ? splitmix(((uint64_t)p << 20) | w) : 0;
    case FILL_SAME:
      return splitmix(p) | 1;
    default:
      return splitmix(((uint64_t)p << 20) | w);
  }
}

struct counters {
  long long pswpout, pswpin, zswpout, zswpin;
};

static long long zero_if_absent(long long v) { return v < 0 ? 0 : v; }

static struct counters read_counters(void) {
  return (struct counters){wl_vmstat("pswpout"), wl_vmstat("pswpin"),
                           zero_if_absent(wl_vmstat("zswpout")),
                           zero_if_absent(wl_vmstat("zswpin"))};
}

/* The cgroup v2 directory this process is in ("0::/path" of /proc/self/cgroup). */
static void own_cgroup(char *out, size_t len) {
  FILE *f = fopen("/proc/self/cgroup", "re");
  char line[512];
  out[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "0::", 3)) continue;
    line[strcspn(line, "\n")] = '\0';
    snprintf(out, len, "%s%.400s", WL_CG_ROOT, line + 3);
  }
  if (f) fclose(f);
  if (!out[0]) wl_fail("/proc/self/cgroup has no cgroup v2 line");
}

/* A memory.max / memory.high file: bytes, or UINT64_MAX for "max" or when absent. */
static uint64_t limit_file(const char *dir, const char *file) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  const long long v = wl_read_number(path); /* "max" is not a number */
  return v < 0 ? UINT64_MAX : (uint64_t)v;
}

static long long peak_of(const char *dir) {
  char path[600];
  snprintf(path, sizeof path, "%s/memory.peak", dir);
  return wl_read_number(path);
}

static double mib(double kb) { return kb / 1024.0; }

/* The lower of memory.max and memory.high of cgroup `dir`; fails the run when it is not below
 * size or when the guest has no swap (nothing would swap). */
static uint64_t swap_limit(const char *dir, uint64_t size) {
  const uint64_t max = limit_file(dir, "memory.max"), high = limit_file(dir, "memory.high");
  const uint64_t limit = max < high ? max : high;
  if (limit >= size)
    wl_fail("no memory limit below size=%" PRIu64
            " in %s (memory.max %s, memory.high %s): "
            "nothing would swap; set cgroup: {memory.max: ...} or memory_max=",
            size, dir, max == UINT64_MAX ? "max" : "set", high == UINT64_MAX ? "max" : "set");
  const long swap_kb = wl_proc_kb("/proc/meminfo", "SwapTotal");
  if (swap_kb <= 0) wl_fail("the guest has no swap (SwapTotal %ld kB): set machine.swap", swap_kb);
  return limit;
}

static uint64_t rotate_in(uint64_t sum, uint64_t v) { return (sum << 7 | sum >> 57) ^ v; }

/* The write phase: every word of every page; returns the checksum of what was written. */
static uint64_t write_pass(uint64_t *mem, size_t pages, size_t wpp, int fill) {
  uint64_t sum = 0;
  for (size_t p = 0; p < pages; p++) {
    uint64_t *page = mem + p * wpp;
    for (size_t w = 0; w < wpp; w++) {
      const uint64_t v = word(fill, p, w, wpp);
      page[w] = v;
      sum = rotate_in(sum, v);
    }
  }
  return sum;
}

/* The read phase: every word compared with what was written; returns the checksum of what was
 * read and fails the run (after the pass) when a page differs. */
static uint64_t read_pass(const uint64_t *mem, size_t pages, size_t wpp, int fill) {
  uint64_t sum = 0;
  size_t bad_pages = 0, first_bad = 0;
  for (size_t p = 0; p < pages; p++) {
    const uint64_t *page = mem + p * wpp;
    int bad = 0;
    for (size_t w = 0; w < wpp; w++) {
      const uint64_t v = page[w];
      sum = rotate_in(sum, v);
      bad |= v != word(fill, p, w, wpp);
    }
    if (bad && !bad_pages++) first_bad = p;
  }
  if (bad_pages)
    wl_fail("%zu of %zu pages read back differ from what was written (first: page %zu)", bad_pages,
            pages, first_bad);
  return sum;
}

/* What the two phases measured: the counters and clocks read around them. */
struct phases {
  struct counters c0, c1, c2;
  int64_t t0, t1, t2;
  struct wl_usage u1, u2;
  uint64_t checksum;
};

static void print_metrics(uint64_t size, uint64_t limit, const char *dir, const struct phases *m) {
  const double kb_per_page = (double)sysconf(_SC_PAGESIZE) / 1024.0;
  const double out_kb =
      (double)((m->c1.pswpout - m->c0.pswpout) + (m->c1.zswpout - m->c0.zswpout)) * kb_per_page;
  const double in_kb =
      (double)((m->c2.pswpin - m->c1.pswpin) + (m->c2.zswpin - m->c1.zswpin)) * kb_per_page;
  const double size_kb = (double)size / 1024.0;
  const double write_s = (double)(m->t1 - m->t0) / 1e9, read_s = (double)(m->t2 - m->t1) / 1e9;
  const long long peak = peak_of(dir);
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "size_kb", (int64_t)(size >> 10));
  wl_json_int(&j, "limit_kb", (int64_t)(limit >> 10));
  wl_json_num(&j, "write_s", write_s);
  wl_json_num(&j, "read_s", read_s);
  wl_json_num(&j, "write_mib_s", write_s > 0 ? mib(size_kb) / write_s : NAN);
  wl_json_num(&j, "read_mib_s", read_s > 0 ? mib(size_kb) / read_s : NAN);
  wl_json_num(&j, "swapout_kb", out_kb);
  wl_json_num(&j, "swapin_kb", in_kb);
  wl_json_num(&j, "swapout_mib_s", write_s > 0 ? mib(out_kb) / write_s : NAN);
  wl_json_num(&j, "swapin_mib_s", read_s > 0 ? mib(in_kb) / read_s : NAN);
  wl_json_num(&j, "swapped_fraction", out_kb / size_kb);
  wl_json_int(&j, "majflt", m->u2.majflt - m->u1.majflt);
  wl_json_opt(&j, "peak_kb", peak < 0 ? -1 : peak >> 10);
  wl_json_int(&j, "checksum", (int64_t)(m->checksum & 0xffffffffu));
  wl_json_int(&j, "checksum_ok", 1);
  wl_json_print(&j);
  if (out_kb <= 0)
    wl_fail("nothing was swapped out writing %" PRIu64 " bytes under a %" PRIu64 "-byte limit",
            size, limit);
}

static void work(uint64_t size, int fill, int advice) {
  const size_t ps = (size_t)sysconf(_SC_PAGESIZE), wpp = ps / sizeof(uint64_t);
  const size_t pages = (size_t)size / ps;
  char dir[512];
  own_cgroup(dir, sizeof dir);
  const uint64_t limit = swap_limit(dir, size);

  uint64_t *mem =
      mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) wl_fail("mmap %" PRIu64 " bytes: %s", size, strerror(errno));
  wl_apply_madvise(mem, (size_t)size, advice);

  struct phases m;
  m.c0 = read_counters();
  m.t0 = wl_now_ns();
  const uint64_t sum_written = write_pass(mem, pages, wpp, fill);
  m.t1 = wl_now_ns();
  m.c1 = read_counters();
  m.u1 = wl_usage_self();
  const uint64_t sum_read = read_pass(mem, pages, wpp, fill);
  m.t2 = wl_now_ns();
  m.c2 = read_counters();
  m.u2 = wl_usage_self();
  if (sum_read != sum_written)
    wl_fail("checksum read %016" PRIx64 " != written %016" PRIx64, sum_read, sum_written);
  m.checksum = sum_read;
  print_metrics(size, limit, dir, &m);
  munmap(mem, (size_t)size);
}

static const char *join_cgroup(void *arg) {
  (void)arg;
  return wl_cg_join_self(&g_cg);
}

int main(int argc, char **argv) {
  static const char *const fills[] = {"random", "compressible", "same", NULL};
  struct wl_arg spec[] = {
#include "swap.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const uint64_t size = wl_arg_size(spec, "size");
  const int fill = wl_arg_choice(spec, "fill", fills);
  const int advice = wl_arg_choice(spec, "madvise", wl_madvise_names);
  const uint64_t memory_max = wl_arg_size(spec, "memory_max");
  const size_t ps = (size_t)sysconf(_SC_PAGESIZE);
  if (size == 0 || size % ps || size > SIZE_MAX / 2)
    wl_usage("size=%" PRIu64 ": must be a non-zero multiple of the page size %zu", size, ps);
  if (memory_max && memory_max >= size)
    wl_usage("memory_max=%" PRIu64 ": must be below size=%" PRIu64 " (or 0)", memory_max, size);
  if (memory_max) {
    g_cg_owner = getpid();
    atexit(cleanup);
    wl_cg_create(&g_cg, "foliolab-swap");
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, memory_max);
    const int rc = wl_cg_write(&g_cg, "memory.max", v);
    if (rc) wl_fail("write %s to %s/memory.max: %s", v, g_cg.dir, strerror(-rc));
  }
  fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) wl_fail("fork: %s", strerror(errno));
  if (pid == 0) {
    if (memory_max) {
      const char *step = join_cgroup(NULL);
      if (step) wl_fail("joining %s: %s", step, strerror(errno));
    }
    work(size, fill, advice);
    wl_ok();
    _exit(0);
  }
  const int status = wl_wait_status(pid, "the writer");
  if (WIFSIGNALED(status)) {
    char what[32];
    wl_fail("the writer was killed (%s; the OOM killer, if memory.events oom_kill moved)",
            wl_describe_status(status, what, sizeof what));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : WL_EXIT_FAIL;
}
