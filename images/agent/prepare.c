/* Putting the machine into the job's state (prepare.h). */
#define _GNU_SOURCE
#include "prepare.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "churn.h"
#include "disk.h"
#include "record.h"
#include "state.h"
#include "sysfs.h"

#define SPLIT_FILE "/sys/kernel/debug/split_huge_pages"

static pid_t holders[MAX_PREPARE];
static size_t nholders;

/* ---------------- small file helpers ---------------- */

static int put(const char *path, const char *value) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  size_t n = strlen(value);
  ssize_t w = write(fd, value, n);
  int err = w < 0 ? errno : (size_t)w != n ? EIO : 0;
  close(fd);
  return -err;
}

/* The first line of a file (NUL-terminated, no newline) into out; "" when unreadable. */
static void get(const char *path, struct sb *out) {
  if (read_file(path, out)) {
    out->len = 0;
    sb_puts(out, "");
  }
  strip_newlines(out);
}

static unsigned long long meminfo(const char *field) {
  long long v;
  char name[64];
  snprintf(name, sizeof name, "meminfo.%s", field);
  return counter_value(name, &v) ? 0 : (unsigned long long)v;
}

/* ---------------- swap ---------------- */

/* mkswap: a version-1 header in the first page (util-linux's layout: bootbits, version,
 * last_page, nr_badpages, uuid, label, padding; "SWAPSPACE2" in the page's last 10 bytes). */
static void write_swap_header(const char *dev, unsigned long long bytes) {
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *h = calloc(1, (size_t)page);
  if (!h) fail_run("prepare", "swap: out of memory");
  uint32_t info[3] = {1, (uint32_t)(bytes / (unsigned long long)page - 1), 0};
  memcpy(h + 1024, info, sizeof info);
  memcpy(h + page - 10, "SWAPSPACE2", 10);
  int fd = open(dev, O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail_run("prepare", "swap: open %s: %s", dev, strerror(errno));
  if (pwrite(fd, h, (size_t)page, 0) != page || fsync(fd))
    fail_run("prepare", "swap: writing the swap header to %s: %s", dev, strerror(errno));
  close(fd);
  free(h);
}

static void setup_swap(const struct machine_state *m) {
  char dev[64] = "/dev/zram0", bytes[32];
  struct sb p = {0}, v = {0};
  snprintf(bytes, sizeof bytes, "%llu", m->swap_bytes);
  if (m->swap == SWAP_ZRAM) {
    if (access("/sys/block/zram0", F_OK))
      fail_run("prepare", "swap zram: the kernel has no /sys/block/zram0 (CONFIG_ZRAM)");
    int rc = strcmp(m->swap_arg, "-") ? put("/sys/block/zram0/comp_algorithm", m->swap_arg) : 0;
    if (rc) fail_run("prepare", "swap zram: compressor %s: %s", m->swap_arg, strerror(-rc));
    if ((rc = put("/sys/block/zram0/disksize", bytes)))
      fail_run("prepare", "swap zram: disksize %s: %s", bytes, strerror(-rc));
  } else if (disk_by_serial(m->swap_arg, dev, sizeof dev)) {
    fail_run("prepare", "swap disk: no virtio disk with serial %s in /sys/block", m->swap_arg);
  }
  write_swap_header(dev, m->swap_bytes);
  if (swapon(dev, 0)) fail_run("prepare", "swap: swapon %s: %s", dev, strerror(errno));
  kv_add(&p, "step", "swap");
  kv_add(&p, "status", "ok");
  kv_add(&p, "type", m->swap == SWAP_ZRAM ? "zram" : "disk");
  kv_add(&p, "device", dev);
  kv_addf(&p, "swap_total_kb", "%llu", meminfo("SwapTotal"));
  if (m->swap == SWAP_ZRAM) {
    get("/sys/block/zram0/comp_algorithm", &v);
    kv_add(&p, "compressor", v.p);
  }
  record_emit_sb("prepare", &p);
  log_msg("swap: %s on %s, %llu kB", m->swap == SWAP_ZRAM ? "zram" : "disk", dev,
          meminfo("SwapTotal"));
  sb_free(&p), sb_free(&v);
}

static void setup_zswap(const struct machine_state *m) {
  struct sb p = {0}, v = {0};
  if (access("/sys/module/zswap/parameters/enabled", F_OK))
    fail_run("prepare", "zswap: the kernel has no /sys/module/zswap (CONFIG_ZSWAP)");
  int rc = strcmp(m->zswap, "-") ? put("/sys/module/zswap/parameters/compressor", m->zswap) : 0;
  if (rc) fail_run("prepare", "zswap: compressor %s: %s", m->zswap, strerror(-rc));
  if ((rc = put("/sys/module/zswap/parameters/enabled", "Y")))
    fail_run("prepare", "zswap: enabling: %s", strerror(-rc));
  kv_add(&p, "step", "zswap");
  kv_add(&p, "status", "ok");
  get("/sys/module/zswap/parameters/enabled", &v);
  kv_add(&p, "enabled", v.p);
  get("/sys/module/zswap/parameters/compressor", &v);
  kv_add(&p, "compressor", v.p);
  record_emit_sb("prepare", &p);
  sb_free(&p), sb_free(&v);
}

static void setup_cgroup(const struct machine_state *m) {
  struct sb p = {0}, v = {0}, path = {0};
  if (mkdir(CGROUP_DIR, 0755) && errno != EEXIST)
    fail_run("prepare", "cgroup: mkdir %s: %s (cgroup2 mounted?)", CGROUP_DIR, strerror(errno));
  int rc = put("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
  if (rc) fail_run("prepare", "cgroup: enabling the memory controller: %s", strerror(-rc));
  kv_add(&p, "step", "cgroup");
  kv_add(&p, "status", "ok");
  kv_add(&p, "path", CGROUP_DIR);
  for (size_t i = 0; i < m->ncgroup; i++) {
    path.len = 0;
    sb_printf(&path, "%s/%s", CGROUP_DIR, m->cgroup[i].file);
    if ((rc = put(path.p, m->cgroup[i].value)))
      fail_run("prepare", "cgroup: %s = %s: %s", m->cgroup[i].file, m->cgroup[i].value,
               strerror(-rc));
    get(path.p, &v);
    kv_add(&p, m->cgroup[i].file, v.p); /* as the kernel reads it back (page-rounded) */
  }
  record_emit_sb("prepare", &p);
  sb_free(&p), sb_free(&v), sb_free(&path);
}

void state_setup(const struct job *job) {
  const struct machine_state *m = &job->state;
  if (m->swap != SWAP_NONE) setup_swap(m);
  if (m->zswap) setup_zswap(m);
  if (m->ncgroup) setup_cgroup(m);
}

int cgroup_join(const struct job *job) {
  if (!job->state.ncgroup) return 0;
  return put(CGROUP_DIR "/cgroup.procs", "0");
}

/* ---------------- fragmentation ---------------- */

/* What a holder reached, sent to the agent through a pipe before it pauses. */
struct frag_result {
  unsigned long long region, thp_kb, freed, file, free_kb, blocks;
  unsigned long long region2, thp2_kb, blocks2; /* the unusable method's reserve_pass */
  int order, index_before, index_after, reached, pinned;
  struct churn_result churn;
  char why[200];
};

static unsigned long long xorshift(unsigned long long *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static int aggregate_unusable(int order) {
  struct buddy b;
  if (buddy_read(&b)) return -1;
  return unusable_permille(b.count[b.nzones], b.norders, order);
}

/* Fills `len` bytes at `at` with PMD THPs as far as the kernel gives them (enabled and defrag of
 * the top level and of the PMD size set for the fill, then put back), and returns the kB of
 * AnonHugePages they got. */
static unsigned long long fill_with_thps(char *at, size_t len, unsigned long long pmd) {
  static const char *const knobs[] = {"enabled", "defrag", NULL};
  struct sb saved[3] = {{0}}, path = {0}, pmd_knob = {0};
  sb_printf(&pmd_knob, "hugepages-%llukB/enabled", pmd >> 10);
  const char *names[3] = {knobs[0], knobs[1], pmd_knob.p};
  const char *fill[3] = {"always", "never", "inherit"};
  for (int i = 0; i < 3; i++) {
    path.len = 0;
    sb_printf(&path, "%s/%s", THP_DIR, names[i]);
    get(path.p, &saved[i]);
    put(path.p, fill[i]);
  }
  madvise(at, len, MADV_HUGEPAGE);
  long page = sysconf(_SC_PAGESIZE);
  for (size_t off = 0; off < len; off += (size_t)page) at[off] = 1;
  for (int i = 0; i < 3; i++) { /* "always [madvise] never" -> the bracketed word */
    char *l = strchr(saved[i].p, '['), *r = l ? strchr(l, ']') : NULL;
    if (!r) continue;
    *r = '\0';
    path.len = 0;
    sb_printf(&path, "%s/%s", THP_DIR, names[i]);
    put(path.p, l + 1);
  }
  long long thp = 0;
  struct sb f = {0};
  if (read_file("/proc/self/smaps_rollup", &f) == 0) {
    char *a = strstr(f.p, "AnonHugePages:");
    if (a) thp = strtoll(a + 14, NULL, 10);
  }
  for (int i = 0; i < 3; i++) sb_free(&saved[i]);
  sb_free(&f), sb_free(&path), sb_free(&pmd_knob);
  return (unsigned long long)thp;
}

/* Splits the region's THPs into base pages that stay where they are (debugfs split_huge_pages),
 * so that freeing part of one gives its pages back at once instead of queueing a deferred split. */
static int split_region(char *at, size_t len) {
  char req[96];
  snprintf(req, sizeof req, "%d,%p,%p", getpid(), (void *)at, (void *)(at + len));
  return put(SPLIT_FILE, req);
}

/* The region a fragment step lays out: as much free memory as is above the reserve, in whole
 * chunks, filled with PMD THPs and split in place. NULL, with r->why, when it cannot be. */
static char *lay_out(const struct prep *p, unsigned long long pmd, unsigned long long block,
                     struct frag_result *r) {
  const unsigned long long stride = 2 * block, chunk = stride > pmd ? stride : pmd;
  const unsigned long long reserve = p->reserve ? p->reserve : (meminfo("MemTotal") << 10) / 16;
  const unsigned long long free_bytes = meminfo("MemFree") << 10;
  r->index_before = aggregate_unusable(r->order);
  if (!pmd || free_bytes < reserve + 16 * chunk) {
    snprintf(r->why, sizeof r->why, "%llu kB free, reserve %llu kB: nothing to fragment",
             free_bytes >> 10, reserve >> 10);
    return NULL;
  }
  r->region = (free_bytes - reserve) / chunk * chunk;
  char *raw =
      mmap(NULL, r->region + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    snprintf(r->why, sizeof r->why, "mmap %llu bytes: %s", r->region, strerror(errno));
    return NULL;
  }
  char *at = (char *)(((uintptr_t)raw + pmd - 1) & ~(uintptr_t)(pmd - 1));
  r->thp_kb = fill_with_thps(at, r->region, pmd);
  if (r->thp_kb * 2 < r->region >> 10) {
    snprintf(r->why, sizeof r->why,
             "only %llu of %llu kB of the fill got PMD THPs: not a fresh enough guest to lay "
             "out",
             r->thp_kb, r->region >> 10);
    return NULL;
  }
  int rc = split_region(at, r->region);
  if (rc) {
    snprintf(r->why, sizeof r->why, "%s: %s (debugfs)", SPLIT_FILE, strerror(-rc));
    return NULL;
  }
  return at;
}

/* The holder's seed: the step's seed and its index, so that each holder differs. */
static unsigned long long frag_seed(const struct prep *p, int index) {
  return p->seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)index;
}

/* Frees one block of each stride of the len bytes at `at`, on the side the seed picks (counted
 * in *blocks and r->freed); without `to_end`, stops once the unusable index reaches `target`
 * (checked every 8 MiB freed). */
static void punch_holes(char *at, unsigned long long len, unsigned long long seed,
                        unsigned long long block, int to_end, int target,
                        unsigned long long *blocks, struct frag_result *r) {
  r->index_after = aggregate_unusable(r->order);
  for (unsigned long long off = 0; off < len; off += 2 * block) {
    char *hole = at + off + ((xorshift(&seed) & 1) ? block : 0);
    if (madvise(hole, block, MADV_DONTNEED) == 0) r->freed += block, (*blocks)++;
    if (!to_end && (r->freed % (8ULL << 20)) < block) {
      r->index_after = aggregate_unusable(r->order);
      if (r->index_after >= target) break;
    }
  }
}

/* thpscale: refills half the holes with a tmpfs file of a quarter of the region. */
static void refill_holes(int index, struct frag_result *r) {
  char name[64];
  snprintf(name, sizeof name, "/tmp/.foliolab-fragment-%d", index);
  int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  static char buf[1 << 20];
  memset(buf, 0x5a, sizeof buf);
  for (unsigned long long w = 0; fd >= 0 && w < r->region / 4; w += sizeof buf)
    if (write(fd, buf, sizeof buf) == (ssize_t)sizeof buf) r->file += sizeof buf;
  if (fd >= 0) close(fd);
}

/* Pins the block kept beside each of the first `blocks` holes punched in the len bytes at `at`
 * (the same seed picks the same sides), with compaction of unevictable pages off, so that
 * compaction cannot undo the layout. */
static void pin_kept(char *at, unsigned long long len, unsigned long long seed,
                     unsigned long long block, unsigned long long blocks, struct frag_result *r) {
  put(SYSCTL_DIR "/vm/compact_unevictable_allowed", "0");
  const unsigned long long stride = 2 * block;
  for (unsigned long long off = 0; off < len; off += stride) {
    char *kept = at + off + ((xorshift(&seed) & 1) ? 0 : block);
    if (off < blocks * stride && mlock(kept, block) == 0) r->pinned++;
  }
}

/* Free memory in blocks of at least 2^order pages, in bytes (all zones). */
static unsigned long long free_at_order(int order) {
  struct buddy b;
  if (buddy_read(&b)) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  unsigned long long pages = 0;
  for (int o = order; o < b.norders; o++) pages += b.count[b.nzones][o] << o;
  return pages * (unsigned long long)page;
}

/* The unusable method's second pass, when the first left the target unreached: the reserve the
 * first fill left whole is what keeps the index low (1/16 of the guest in large free blocks
 * caps it near 0.85 at order 4), so the PMD-order free memory left, all but kReserveKeep, is
 * filled with THPs, split and holed the same way. Nothing the workload needs is lost: every
 * hole is free memory for base-page (and up to order-(N-1)) allocations, and the holes of the
 * first pass alone are about half the guest. */
#define RESERVE_KEEP (4ULL << 20)
static void reserve_pass(const struct prep *p, int index, unsigned long long pmd,
                         unsigned long long block, int target, struct frag_result *r) {
  const unsigned long long chunk = 2 * block > pmd ? 2 * block : pmd;
  const int pmd_order = __builtin_ctzll(pmd / (unsigned long long)sysconf(_SC_PAGESIZE));
  const unsigned long long usable = free_at_order(pmd_order);
  if (usable < RESERVE_KEEP + chunk) return;
  const unsigned long long len = (usable - RESERVE_KEEP) / chunk * chunk;
  char *raw = mmap(NULL, len + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return;
  char *at = (char *)(((uintptr_t)raw + pmd - 1) & ~(uintptr_t)(pmd - 1));
  r->thp2_kb = fill_with_thps(at, len, pmd); /* this region's alone: the first one is split */
  if (!r->thp2_kb || split_region(at, len)) return;
  r->region2 = len;
  const unsigned long long seed = frag_seed(p, index) ^ 0x5eedULL;
  punch_holes(at, len, seed, block, 0, target, &r->blocks2, r);
  if (p->pin) pin_kept(at, len, seed, block, r->blocks2, r);
}

static void fragment(const struct prep *p, int index, struct frag_result *r) {
  const long page = sysconf(_SC_PAGESIZE);
  struct sb v = {0};
  get(THP_DIR "/hpage_pmd_size", &v);
  const unsigned long long pmd = strtoull(v.p ? v.p : "0", NULL, 10);
  sb_free(&v);
  const int pmd_order = __builtin_ctzll(pmd / (unsigned long long)page);
  const int thpscale = !strcmp(p->method, "thpscale");
  r->order = thpscale || !strcmp(p->method, "churn") ? pmd_order : (int)p->order;
  if (!strcmp(p->method, "churn")) {
    r->index_before = aggregate_unusable(r->order);
    r->reached = !churn_lay_out(p, index, &r->churn, r->why, sizeof r->why);
    r->index_after = aggregate_unusable(r->order);
    r->free_kb = meminfo("MemFree");
    return;
  }
  const unsigned long long block = (unsigned long long)page << (r->order - 1);
  char *at = lay_out(p, pmd, block, r);
  if (!at) return;
  const int target = (int)(p->target * 1000 + 0.5);
  punch_holes(at, r->region, frag_seed(p, index), block, thpscale, target, &r->blocks, r);
  if (thpscale) refill_holes(index, r);
  if (p->pin) pin_kept(at, r->region, frag_seed(p, index), block, r->blocks, r);
  if (!thpscale && aggregate_unusable(r->order) < target)
    reserve_pass(p, index, pmd, block, target, r);
  r->index_after = aggregate_unusable(r->order);
  r->free_kb = meminfo("MemFree");
  r->reached = thpscale || r->index_after >= target;
  if (!r->reached)
    snprintf(r->why, sizeof r->why, "the unusable index at order %d reached %.3f, not %.3f",
             r->order, r->index_after / 1000.0, p->target);
}

static void emit_fragment(const struct prep *p, int index, const struct frag_result *r) {
  struct sb rec = {0};
  kv_add(&rec, "step", "fragment");
  kv_addf(&rec, "index", "%d", index);
  kv_add(&rec, "status", r->reached ? "ok" : "failed");
  kv_add(&rec, "method", p->method);
  kv_addf(&rec, "order", "%d", r->order);
  kv_addf(&rec, "region_kb", "%llu", r->region >> 10);
  kv_addf(&rec, "thp_kb", "%llu", r->thp_kb);
  kv_addf(&rec, "freed_kb", "%llu", r->freed >> 10);
  if (r->region2) {
    kv_addf(&rec, "reserve_pass_kb", "%llu", r->region2 >> 10);
    kv_addf(&rec, "reserve_pass_thp_kb", "%llu", r->thp2_kb);
  }
  kv_addf(&rec, "file_kb", "%llu", r->file >> 10);
  if (!strcmp(p->method, "churn")) {
    kv_addf(&rec, "files", "%llu", r->churn.files);
    kv_addf(&rec, "written_kb", "%llu", r->churn.written >> 10);
    kv_addf(&rec, "reads", "%llu", r->churn.reads);
    kv_addf(&rec, "churn_ms", "%llu", r->churn.ms);
    kv_addf(&rec, "cached_kb", "%llu", r->churn.cached_kb);
    kv_addf(&rec, "slab_kb_before", "%llu", r->churn.slab_before_kb);
    kv_addf(&rec, "slab_kb", "%llu", r->churn.slab_kb);
    kv_add(&rec, "background", p->background ? "1" : "0");
  }
  kv_addf(&rec, "pinned_blocks", "%d", r->pinned);
  kv_addf(&rec, "free_kb", "%llu", r->free_kb);
  kv_addf(&rec, "unusable_before", "%d", r->index_before);
  kv_addf(&rec, "unusable_after", "%d", r->index_after);
  if (!strcmp(p->method, "unusable")) kv_addf(&rec, "target", "%d", (int)(p->target * 1000 + 0.5));
  if (r->why[0]) kv_add(&rec, "why", r->why);
  record_emit_sb("prepare", &rec);
  sb_free(&rec);
  log_msg("prepare[%d] fragment %s: order %d unusable %.3f -> %.3f, %llu of %llu kB freed", index,
          p->method, r->order, r->index_before / 1000.0, r->index_after / 1000.0, r->freed >> 10,
          r->region >> 10);
}

/* A holder: fragments, reports, and keeps its memory until killed. */
static void run_fragment(const struct prep *p, int index) {
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC)) fail_run("prepare", "pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) fail_run("prepare", "fork: %s", strerror(errno));
  if (pid == 0) {
    close(pfd[0]);
    put("/proc/self/oom_score_adj", "-1000"); /* the workload, not the state, is what may go */
    struct frag_result r = {0};
    fragment(p, index, &r);
    if (write(pfd[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
    close(pfd[1]);
    if (r.reached && p->background) churn_forever(p, index);
    for (;;) pause();
  }
  close(pfd[1]);
  holders[nholders++] = pid;
  struct frag_result r;
  ssize_t n;
  while ((n = read(pfd[0], &r, sizeof r)) < 0 && errno == EINTR) {
  }
  close(pfd[0]);
  if (n != (ssize_t)sizeof r) fail_run("prepare", "prepare[%d] fragment: its process died", index);
  emit_fragment(p, index, &r);
  if (r.why[0])
    fail_run("prepare",
             "prepare[%d] fragment %s: %s (unusable index at order %d: %.3f before, "
             "%.3f after)",
             index, p->method, r.why, r.order, r.index_before / 1000.0, r.index_after / 1000.0);
}

static void run_reclaim(const struct prep *p, int index) {
  char bytes[32];
  struct sb rec = {0};
  snprintf(bytes, sizeof bytes, "%llu", p->bytes);
  unsigned long long before = meminfo("MemFree");
  int rc = put("/sys/fs/cgroup/memory.reclaim", bytes);
  kv_add(&rec, "step", "reclaim");
  kv_addf(&rec, "index", "%d", index);
  kv_add(&rec, "status", rc ? "failed" : "ok");
  kv_addf(&rec, "requested_kb", "%llu", p->bytes >> 10);
  kv_addf(&rec, "free_kb_before", "%llu", before);
  kv_addf(&rec, "free_kb_after", "%llu", meminfo("MemFree"));
  if (rc) kv_add(&rec, "why", strerror(-rc));
  record_emit_sb("prepare", &rec);
  sb_free(&rec);
  /* EAGAIN: the kernel reclaimed less than asked */
  if (rc) fail_run("prepare", "prepare[%d] reclaim %s bytes: %s", index, bytes, strerror(-rc));
}

void state_prepare(const struct job *job) {
  for (size_t i = 0; i < job->state.nprep; i++) {
    const struct prep *p = &job->state.prep[i];
    log_msg("prepare[%zu]: %s", i, p->reclaim ? "reclaim" : p->method);
    if (p->reclaim)
      run_reclaim(p, (int)i);
    else
      run_fragment(p, (int)i);
  }
}

void state_finish(void) {
  for (size_t i = 0; i < nholders; i++) {
    kill(holders[i], SIGKILL);
    while (waitpid(holders[i], NULL, 0) < 0 && errno == EINTR) {
    }
  }
  nholders = 0;
}
