/* thp-util: utilisation of this process's own THPs and the underused-THP shrinker, after
 * seed 003 ("THP Shrinker": thp_utilization buckets) as merged in 6.12 (shrink_underused,
 * khugepaged/max_ptes_none, vmstat thp_underused_split_page).
 *
 * Arguments (key=value):
 *   thps=32          N: regions of one PMD size each (2 MiB with 4K pages)
 *   touched=1        subpages written per region, 0..subpages per PMD: the first one and the
 *                    rest evenly spread (subpage k * nr / touched)
 *   shrink=0         1: after measuring, `echo 2 > /proc/sys/vm/drop_caches` (runs every
 *                    shrinker, the deferred-split one too) and measure again
 *   madvise=none     none | hugepage | nohugepage over the whole mapping before writing
 *
 * Maps N+1 PMDs of private anonymous memory, uses the N PMD-aligned regions inside. Each
 * written subpage gets one non-zero 64-bit word at offset 0 (the rest stays zero).
 * A region counts as a THP when /proc/self/pagemap shows all its subpages present, with
 * consecutive PFNs starting at a PMD-aligned PFN, and /proc/kpageflags gives each KPF_THP
 * (bit 22), not KPF_ZERO_PAGE (24), KPF_COMPOUND_HEAD (15) on the first subpage only.
 * A subpage of a THP is "utilized" when its 4K content (read through the mapping) is not all
 * zero. Metrics:
 *   thps, touched, subpages (per region), thps_found, util_0_50 ... util_460_512 (THPs per
 *   utilized-subpage bucket, seed 003's buckets; utilisation scaled to 512 subpages),
 *   rss_kb, anon_huge_kb (smaps_rollup, after writing)
 *   with shrink=1 also: underused_split (/proc/vmstat thp_underused_split_page delta over the
 *   drop_caches write; null if absent), rss_kb_after, anon_huge_kb_after, thps_found_after
 * pagemap hides PFNs without CAP_SYS_ADMIN and /proc/kpageflags needs root: thps_found and
 * the buckets are then null.
 * Invariants: after writing (and after the shrink), every written word reads back and every
 * other byte of the regions reads zero.
 */
#include "common.h"
#include "def_args.h"

#include <fcntl.h>
#include <unistd.h>

#define KPF_COMPOUND_HEAD 15
#define KPF_THP 22
#define KPF_ZERO_PAGE 24
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define NBUCKETS 10

static const int bucket_lo[NBUCKETS] = {0, 51, 102, 153, 204, 256, 307, 358, 409, 460};
static const char *const bucket_name[NBUCKETS] = {
    "util_0_50",    "util_51_101",  "util_102_152", "util_153_203", "util_204_255",
    "util_256_306", "util_307_357", "util_358_408", "util_409_459", "util_460_512"};

struct scan {
  long long thps_found; /* -1: not computable */
  long long buckets[NBUCKETS];
};

static size_t g_ps, g_pmd, g_nr;
static int g_pagemap = -1, g_kpageflags = -1;

static uint64_t word_for(size_t region, size_t sub) {
  return 0xf011011ab0000000ULL ^ ((uint64_t)region << 20) ^ (uint64_t)sub ^ 1ULL << 63;
}

static int page_is_zero(const unsigned char *p) {
  const uint64_t *w = (const uint64_t *)p;
  for (size_t i = 0; i < g_ps / 8; i++)
    if (w[i]) return 0;
  return 1;
}

static int pread_full(int fd, void *buf, size_t len, off_t off) {
  ssize_t n = pread(fd, buf, len, off);
  return n == (ssize_t)len ? 0 : -1;
}

/* 1: region at r is one PMD-mapped-sized THP, 0: it is not, -1: cannot tell. */
static int region_is_thp(const unsigned char *r, uint64_t *pm) {
  if (pread_full(g_pagemap, pm, g_nr * 8, (off_t)((uintptr_t)r / g_ps * 8)))
    wl_fail("read /proc/self/pagemap: %s", strerror(errno));
  uint64_t pfn0 = pm[0] & PM_PFN_MASK;
  for (size_t i = 0; i < g_nr; i++) {
    if (!(pm[i] & PM_PRESENT)) return 0;
    if ((pm[i] & PM_PFN_MASK) == 0) return -1; /* PFNs hidden */
    if ((pm[i] & PM_PFN_MASK) != pfn0 + i) return 0;
  }
  if (pfn0 % g_nr) return 0;
  for (size_t i = 0; i < g_nr; i++) {
    uint64_t fl;
    if (pread_full(g_kpageflags, &fl, 8, (off_t)((pfn0 + i) * 8))) return -1;
    int head = (fl >> KPF_COMPOUND_HEAD) & 1;
    if (!((fl >> KPF_THP) & 1) || ((fl >> KPF_ZERO_PAGE) & 1) || head != (i == 0)) return 0;
  }
  return 1;
}

static struct scan scan_regions(const unsigned char *base, size_t n) {
  struct scan s = {.thps_found = -1};
  if (g_pagemap < 0 || g_kpageflags < 0) return s;
  uint64_t *pm = malloc(g_nr * 8);
  if (!pm) wl_fail("malloc: out of memory");
  s.thps_found = 0;
  for (size_t r = 0; r < n; r++) {
    const unsigned char *reg = base + r * g_pmd;
    int t = region_is_thp(reg, pm);
    if (t < 0) {
      s.thps_found = -1;
      break;
    }
    if (!t) continue;
    s.thps_found++;
    size_t used = 0;
    for (size_t i = 0; i < g_nr; i++) used += !page_is_zero(reg + i * g_ps);
    int scaled = (int)(used * 512 / g_nr), b = NBUCKETS - 1;
    while (b > 0 && scaled < bucket_lo[b]) b--;
    s.buckets[b]++;
  }
  free(pm);
  return s;
}

/* Every written word reads back, everything else is zero. */
static void verify(const unsigned char *base, size_t n, const size_t *subs, size_t touched,
                   const char *when) {
  for (size_t r = 0; r < n; r++) {
    const unsigned char *reg = base + r * g_pmd;
    size_t k = 0;
    for (size_t i = 0; i < g_nr; i++) {
      const unsigned char *pg = reg + i * g_ps;
      if (k < touched && subs[k] == i) {
        uint64_t got, want = word_for(r, i);
        memcpy(&got, pg, 8);
        if (got != want)
          wl_fail("%s: region %zu subpage %zu reads %#" PRIx64 ", wrote %#" PRIx64, when, r, i, got,
                  want);
        for (size_t b = 8; b < g_ps; b++)
          if (pg[b]) wl_fail("%s: region %zu subpage %zu byte %zu not zero", when, r, i, b);
        k++;
      } else if (!page_is_zero(pg)) {
        wl_fail("%s: untouched region %zu subpage %zu is not zero", when, r, i);
      }
    }
  }
}

static void json_scan(struct wl_json *j, const struct scan *s, const char *found_key, int buckets) {
  wl_json_opt(j, found_key, s->thps_found);
  for (int b = 0; buckets && b < NBUCKETS; b++)
    wl_json_opt(j, bucket_name[b], s->thps_found < 0 ? -1 : s->buckets[b]);
}

/* shrink=1: drop_caches makes the shrinker split the underused THPs; what it split and what is
 * left, with the subpages' contents checked again. */
static void shrink_underused(struct wl_json *j, const unsigned char *base, size_t n,
                             const size_t *subs, size_t touched, long rss) {
  long long s0 = wl_vmstat("thp_underused_split_page");
  int rc = wl_write_file("/proc/sys/vm/drop_caches", "2\n");
  if (rc) wl_fail("echo 2 > /proc/sys/vm/drop_caches: %s", strerror(-rc));
  long long s1 = wl_vmstat("thp_underused_split_page");
  long rss2 = wl_smaps_rollup_kb("Rss"), huge2 = wl_smaps_rollup_kb("AnonHugePages");
  struct scan after = scan_regions(base, n);
  verify(base, n, subs, touched, "after drop_caches");
  wl_json_opt(j, "underused_split", wl_delta(s0, s1));
  wl_json_kb(j, "rss_kb_after", rss2);
  wl_json_kb(j, "anon_huge_kb_after", huge2);
  json_scan(j, &after, "thps_found_after", 0);
  /* Fractions the seed-003 expectations test directly. */
  if (rss > 0 && rss2 >= 0) wl_json_num(j, "rss_after_ratio", (double)rss2 / (double)rss);
  if (s0 >= 0 && s1 >= 0 && n > 0)
    wl_json_num(j, "underused_split_fraction", (double)(s1 - s0) / (double)n);
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "thp-util.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  g_ps = (size_t)sysconf(_SC_PAGESIZE);
  g_pmd = wl_pmd_size(g_ps * (g_ps / 8));
  g_nr = g_pmd / g_ps;
  size_t n = (size_t)wl_param_long(spec, "thps");
  size_t touched = (size_t)wl_param_long(spec, "touched");
  if (touched > g_nr) wl_usage("touched=%zu: a PMD region has %zu subpages", touched, g_nr);
  int shrink = (int)wl_param_long(spec, "shrink");
  int advice = wl_arg_choice(spec, "madvise", wl_madvise_names);

  size_t len = (n + 1) * g_pmd;
  unsigned char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) wl_fail("mmap %zu bytes: %s", len, strerror(errno));
  unsigned char *base = (unsigned char *)(((uintptr_t)map + g_pmd - 1) & ~(uintptr_t)(g_pmd - 1));
  wl_apply_madvise(base, n * g_pmd, advice);

  size_t *subs = calloc(touched ? touched : 1, sizeof *subs);
  if (!subs) wl_fail("calloc: out of memory");
  for (size_t k = 0; k < touched; k++) subs[k] = k * g_nr / touched;
  struct wl_usage u0 = wl_usage_self();
  for (size_t r = 0; r < n; r++)
    for (size_t k = 0; k < touched; k++) {
      uint64_t w = word_for(r, subs[k]);
      memcpy(base + r * g_pmd + subs[k] * g_ps, &w, 8);
    }
  struct wl_usage u1 = wl_usage_self();
  wl_peak();
  long rss = wl_smaps_rollup_kb("Rss"), anon_huge = wl_smaps_rollup_kb("AnonHugePages");

  g_pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  g_kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
  struct scan before = scan_regions(base, n);
  verify(base, n, subs, touched, "after writing");

  struct wl_json j = {.len = 0};
  wl_json_int(&j, "thps", (int64_t)n);
  wl_json_int(&j, "touched", (int64_t)touched);
  wl_json_int(&j, "subpages", (int64_t)g_nr);
  wl_json_int(&j, "faults", u1.minflt - u0.minflt);
  json_scan(&j, &before, "thps_found", 1);
  wl_json_kb(&j, "rss_kb", rss);
  wl_json_kb(&j, "anon_huge_kb", anon_huge);
  if (shrink) shrink_underused(&j, base, n, subs, touched, rss);
  wl_json_print(&j);
  if (g_pagemap >= 0) close(g_pagemap);
  if (g_kpageflags >= 0) close(g_kpageflags);
  munmap(map, len);
  free(subs);
  wl_ok();
  return 0;
}
