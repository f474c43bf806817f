/* collapse: a region of base pages collapsed into PMD THPs, by MADV_COLLAPSE (Linux 6.1+) or by
 * khugepaged; how many blocks collapse and how long it takes. On a fresh guest every block
 * should; on a fragmented one (prepare: fragment) the THP allocations collapse needs may fail.
 *
 * Arguments (key=value):
 *   size=32M        bytes of the region, a multiple of the PMD size (2 MiB with 4K pages)
 *   mode=madvise    madvise: MADV_COLLAPSE on each PMD-sized block in turn (synchronous; it
 *                   ignores the THP sysfs settings and max_ptes_none) | khugepaged:
 *                   MADV_HUGEPAGE, then wait for khugepaged to collapse the blocks
 *   wait=60         khugepaged: seconds to wait for every block (the run does not fail when
 *                   fewer collapse: that count is the result)
 *
 * The region is mapped PMD-aligned, madvised MADV_NOHUGEPAGE and written page by page (so it
 * holds base pages, whatever THP `enabled` says), then MADV_HUGEPAGE (which clears
 * VM_NOHUGEPAGE; MADV_COLLAPSE refuses a VM_NOHUGEPAGE range). Collapsed blocks are counted from
 * the AnonHugePages of the region's own mappings in /proc/self/smaps.
 * Metrics: blocks (PMD-sized blocks), collapsed (blocks that are THPs afterwards),
 *   collapsed_fraction (collapsed / blocks), collapse_s (madvise: the MADV_COLLAPSE calls;
 *   khugepaged: until the last block collapsed, or the wait ran out), s_per_block (collapse_s /
 *   collapsed), madvise_ok and madvise_failed (MADV_COLLAPSE calls returning 0 and -1; failed
 *   ones by errno: madvise_eagain, madvise_enomem (the THP allocation or its charge failed),
 *   madvise_other), thp_collapse_alloc and thp_collapse_alloc_failed (/proc/vmstat deltas of
 *   the collapse phase), pages_collapsed and full_scans (khugepaged's sysfs counters' deltas),
 *   anon_huge_kb (the region's AnonHugePages afterwards) and rss_kb (smaps_rollup).
 * Invariants: before the collapse no block is a THP; afterwards every page still holds what
 * was written.
 */
#include "common.h"
#include "def_args.h"

#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define KHUGEPAGED "/sys/kernel/mm/transparent_hugepage/khugepaged/"

static long long khugepaged_stat(const char *name) {
  char path[128];
  snprintf(path, sizeof path, KHUGEPAGED "%s", name);
  return wl_read_number(path);
}

static unsigned char pattern(size_t page) {
  return (unsigned char)(((page * 37) ^ (page >> 7)) | 1);
}

/* AnonHugePages of the mappings of /proc/self/smaps inside [lo, hi), in kB; -1 if unreadable. */
static long region_huge_kb(uintptr_t lo, uintptr_t hi) {
  FILE *f = fopen("/proc/self/smaps", "re");
  if (!f) return -1;
  char line[512];
  long kb = 0;
  int inside = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long start, end, v;
    if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' '))
      inside = start >= lo && end <= hi;
    else if (inside && sscanf(line, "AnonHugePages: %lu kB", &v) == 1)
      kb += (long)v;
  }
  fclose(f);
  return kb;
}

static unsigned char *g_mem;
static size_t g_size;

static long collapsed_blocks(size_t pmd) {
  const long kb = region_huge_kb((uintptr_t)g_mem, (uintptr_t)g_mem + g_size);
  return kb < 0 ? -1 : kb / (long)(pmd >> 10);
}

// What MADV_COLLAPSE said, block by block.
struct madvise_outcome {
  long ok, failed, eagain, enomem, other;
};

static struct madvise_outcome collapse_by_madvise(size_t blocks, size_t pmd) {
  struct madvise_outcome o = {0, 0, 0, 0, 0};
  for (size_t b = 0; b < blocks; b++) {
    if (!madvise(g_mem + b * pmd, pmd, MADV_COLLAPSE)) {
      o.ok++;
      continue;
    }
    o.failed++;
    if (errno == EAGAIN)
      o.eagain++;
    else if (errno == ENOMEM)
      o.enomem++;
    else if (errno == EINVAL)
      wl_fail("MADV_COLLAPSE: %s (a kernel before 6.1, or without THP)", strerror(errno));
    else
      o.other++;
  }
  return o;
}

// Waits up to wait_s for khugepaged to collapse every block; the blocks collapsed, *t1 when the
// last of them was seen (or the deadline).
static long wait_for_khugepaged(size_t blocks, size_t pmd, long wait_s, int64_t t0, int64_t *t1) {
  const int64_t deadline = t0 + (int64_t)wait_s * 1000000000;
  long done = 0;
  for (;;) {
    const long now = collapsed_blocks(pmd);
    if (now > done) done = now, *t1 = wl_now_ns();
    if ((size_t)done >= blocks || wl_now_ns() >= deadline) break;
    usleep(100000);
  }
  if ((size_t)done < blocks) *t1 = wl_now_ns();
  return done;
}

static void check_pattern(size_t pages, size_t ps) {
  for (size_t p = 0; p < pages; p++) {
    const unsigned char want = pattern(p);
    const unsigned char *page = g_mem + p * ps;
    for (size_t i = 0; i < ps; i++)
      if (page[i] != want)
        wl_fail("page %zu byte %zu reads 0x%02x after the collapse, wrote 0x%02x", p, i, page[i],
                want);
  }
}

// A PMD-aligned region of `size` bytes in g_mem, filled page by page without THPs; the mapping.
static unsigned char *map_filled(uint64_t size, size_t pmd, size_t ps) {
  unsigned char *raw =
      mmap(NULL, (size_t)size + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) wl_fail("mmap %" PRIu64 " bytes: %s", size + pmd, strerror(errno));
  g_mem = (unsigned char *)(((uintptr_t)raw + pmd - 1) & ~(uintptr_t)(pmd - 1));
  g_size = (size_t)size;
  if (madvise(g_mem, g_size, MADV_NOHUGEPAGE))
    wl_fail("madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
  for (size_t p = 0; p < g_size / ps; p++) memset(g_mem + p * ps, pattern(p), ps);
  const long before = collapsed_blocks(pmd);
  if (before != 0) wl_fail("%ld blocks are THPs before the collapse (MADV_NOHUGEPAGE)", before);
  if (madvise(g_mem, g_size, MADV_HUGEPAGE)) wl_fail("madvise(MADV_HUGEPAGE): %s", strerror(errno));
  return raw;
}

// The collapse counters of /proc/vmstat and khugepaged, at one moment.
struct counters {
  long long alloc, alloc_failed, pages_collapsed, full_scans;
};

static struct counters read_counters(void) {
  struct counters c = {wl_vmstat("thp_collapse_alloc"), wl_vmstat("thp_collapse_alloc_failed"),
                       khugepaged_stat("pages_collapsed"), khugepaged_stat("full_scans")};
  return c;
}

static void print_result(size_t blocks, long done, double collapse_s,
                         const struct madvise_outcome *o, const struct counters *c0,
                         const struct counters *c1) {
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "blocks", (int64_t)blocks);
  wl_json_int(&j, "collapsed", done);
  wl_json_num(&j, "collapsed_fraction", (double)done / (double)blocks);
  wl_json_num(&j, "collapse_s", collapse_s);
  wl_json_num(&j, "s_per_block", done ? collapse_s / (double)done : NAN);
  wl_json_int(&j, "madvise_ok", o->ok);
  wl_json_int(&j, "madvise_failed", o->failed);
  wl_json_int(&j, "madvise_eagain", o->eagain);
  wl_json_int(&j, "madvise_enomem", o->enomem);
  wl_json_int(&j, "madvise_other", o->other);
  wl_json_opt(&j, "thp_collapse_alloc", wl_delta(c0->alloc, c1->alloc));
  wl_json_opt(&j, "thp_collapse_alloc_failed", wl_delta(c0->alloc_failed, c1->alloc_failed));
  wl_json_opt(&j, "pages_collapsed", wl_delta(c0->pages_collapsed, c1->pages_collapsed));
  wl_json_opt(&j, "full_scans", wl_delta(c0->full_scans, c1->full_scans));
  wl_peak();
  wl_json_kb(&j, "anon_huge_kb", region_huge_kb((uintptr_t)g_mem, (uintptr_t)g_mem + g_size));
  wl_json_kb(&j, "rss_kb", wl_smaps_rollup_kb("Rss"));
  wl_json_print(&j);
}

int main(int argc, char **argv) {
  static const char *const modes[] = {"madvise", "khugepaged", NULL};
  struct wl_arg spec[] = {
#include "collapse.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const uint64_t size = wl_arg_size(spec, "size");
  const int khugepaged = wl_arg_choice(spec, "mode", modes) == 1;
  const long wait_s = wl_param_long(spec, "wait");
  const size_t ps = (size_t)sysconf(_SC_PAGESIZE), pmd = wl_pmd_size(0);
  if (!pmd) wl_fail("no hpage_pmd_size: the kernel has no THP (CONFIG_TRANSPARENT_HUGEPAGE)");
  if (size == 0 || size % pmd || size > SIZE_MAX / 4)
    wl_usage("size=%" PRIu64 ": must be a non-zero multiple of the PMD size %zu", size, pmd);
  const size_t blocks = (size_t)size / pmd;
  unsigned char *raw = map_filled(size, pmd, ps);

  struct madvise_outcome o = {0, 0, 0, 0, 0};
  long done = 0;
  const struct counters c0 = read_counters();
  const int64_t t0 = wl_now_ns();
  int64_t t1 = t0;
  if (!khugepaged) {
    o = collapse_by_madvise(blocks, pmd);
    t1 = wl_now_ns();
    done = collapsed_blocks(pmd);
  } else {
    done = wait_for_khugepaged(blocks, pmd, wait_s, t0, &t1);
  }
  const double collapse_s = (double)(t1 - t0) / 1e9;
  const struct counters c1 = read_counters();
  check_pattern((size_t)size / ps, ps);
  print_result(blocks, done, collapse_s, &o, &c0, &c1);
  munmap(raw, (size_t)size + pmd);
  wl_ok();
  return 0;
}
