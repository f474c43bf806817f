/* foliolab guest agent: the folio census of processes (census_proc.h). */
#define _GNU_SOURCE
#include "census_proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "census.h"
#include "record.h"

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

struct proc_files {
  int pagemap, kpageflags;
};

static long read_entries(void *ctx, enum census_file file, uint64_t index, uint64_t *out,
                         size_t n) {
  const struct proc_files *f = ctx;
  const int fd = file == CENSUS_PAGEMAP ? f->pagemap : f->kpageflags;
  size_t got = 0;
  while (got < n * sizeof *out) {
    ssize_t r = pread(fd, (char *)out + got, n * sizeof *out - got, (off_t)(index * 8 + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (long)(got / sizeof *out);
}

/* The machine's sizes, in pages. */
struct geometry {
  uint64_t page_kb, pmd_pages;
  unsigned pmd_order, cont_pages;
  uint32_t orders; /* bit o: the kernel has folios of order o (base pages, each mTHP size) */
};

static unsigned log2u(uint64_t v) {
  unsigned o = 0;
  while (v > 1) v >>= 1, o++;
  return o;
}

static void geometry_read(struct geometry *g) {
  struct sb f = {0};
  g->page_kb = (uint64_t)sysconf(_SC_PAGESIZE) >> 10;
  g->pmd_pages = read_file(THP_SYSFS "/hpage_pmd_size", &f) ? 512 : strtoull(f.p, NULL, 10) >> 10;
  g->pmd_pages = g->pmd_pages > g->page_kb ? g->pmd_pages / g->page_kb : 512;
  g->pmd_order = log2u(g->pmd_pages);
  sb_free(&f);
  /* arm64's CONT_PTES: 16 at 4K pages, 128 at 16K, 32 at 64K (arch/arm64/include/asm/
   * pgtable-hwdef.h). Other arches have no contiguous-PTE blocks. */
#ifdef __aarch64__
  g->cont_pages = g->page_kb == 4 ? 16 : g->page_kb == 16 ? 128 : 32;
#else
  g->cont_pages = 0;
#endif
  g->orders = 1;
  DIR *d = opendir(THP_SYSFS);
  for (struct dirent *e; d && (e = readdir(d));) {
    unsigned long long kb;
    if (sscanf(e->d_name, "hugepages-%llukB", &kb) == 1 && kb >= g->page_kb)
      g->orders |= 1u << (log2u(kb / g->page_kb) % CENSUS_MAX_ORDER);
  }
  if (d) closedir(d);
}

/* One mapping of /proc/PID/smaps: its header line and the fields the census needs. */
struct vma {
  uint64_t start, end;
  char perms[8];
  char name[160];
  long long rss_kb, pmd_kb[CENSUS_NKINDS]; /* AnonHugePages, ShmemPmdMapped, FilePmdMapped */
};

struct totals {
  struct census_counts c;
  uint64_t pmd_folios[CENSUS_NKINDS];
  long long rss_kb;
  long nvma;
  int failed;
};

static void add_counts(struct census_counts *to, const struct census_counts *from) {
  const uint64_t *s = (const uint64_t *)from;
  uint64_t *d = (uint64_t *)to;
  for (size_t i = 0; i < sizeof *from / sizeof *s; i++) d[i] += s[i];
}

/* `<kind>.<size>=<folios>/<kB>[/p<partial folios>]` for each order a kind has pages of. */
static void vma_detail(struct sb *line, const struct census_counts *c, const struct geometry *g) {
  char size[16];
  for (int k = 0; k < CENSUS_NKINDS; k++) {
    const struct census_kind_counts *kc = &c->kind[k];
    for (int o = 0; o < CENSUS_MAX_ORDER; o++) {
      if (!kc->pages[o]) continue;
      census_size_name(g->page_kb << o, size, sizeof size);
      sb_printf(line, " %s.%s=%llu/%llu", census_kind_name(k), size,
                (unsigned long long)kc->folios[o], (unsigned long long)(kc->pages[o] * g->page_kb));
    }
    if (kc->partial_folios)
      sb_printf(line, " %s.partial=%llu", census_kind_name(k),
                (unsigned long long)kc->partial_folios);
  }
  if (c->zero_pages) sb_printf(line, " zero=%llu", (unsigned long long)c->zero_pages);
}

/* The census of one mapping into *t, and its `vma.<n>` line into payload. */
static void census_vma(struct census_walk *w, const struct vma *v, pid_t pid,
                       const struct geometry *g, struct totals *t, struct sb *payload) {
  struct census_counts c;
  memset(&c, 0, sizeof c);
  const uint64_t shift = log2u(g->page_kb << 10);
  if (census_mapping(w, v->start >> shift, v->end >> shift, &c)) t->failed = 1;
  for (int k = 0; k < CENSUS_NKINDS; k++) {
    const uint64_t pmd = (uint64_t)v->pmd_kb[k] / (g->pmd_pages * g->page_kb);
    t->pmd_folios[k] += pmd;
    /* A PMD-mapped folio is no contiguous-PTE block: thpmaps takes its blocks out. */
    const uint64_t in_pmd = g->cont_pages ? pmd * (g->pmd_pages / g->cont_pages) : 0;
    c.kind[k].cont_blocks -= in_pmd < c.kind[k].cont_blocks ? in_pmd : c.kind[k].cont_blocks;
  }
  add_counts(&t->c, &c);
  t->rss_kb += v->rss_kb;
  struct sb line = {0}, key = {0};
  sb_printf(&line, "%d %llx-%llx %s %lld %llu", (int)pid, (unsigned long long)v->start,
            (unsigned long long)v->end, v->perms, v->rss_kb,
            (unsigned long long)(census_rss_pages(&c) * g->page_kb));
  vma_detail(&line, &c, g);
  sb_printf(&line, "|%s", v->name);
  sb_printf(&key, "vma.%ld", t->nvma++);
  kv_add(payload, key.p, line.p);
  sb_free(&line), sb_free(&key);
}

/* A smaps header line ("start-end perms offset dev inode [name]"): 1 and *v filled, else 0. */
static int vma_header(const char *l, struct vma *v) {
  unsigned long long s, e;
  int name_at = 0;
  memset(v, 0, sizeof *v);
  if (sscanf(l, "%llx-%llx %7s %*s %*s %*s%n", &s, &e, v->perms, &name_at) < 3 || !name_at)
    return 0;
  v->start = s, v->end = e;
  const char *name = l + name_at + strspn(l + name_at, " ");
  snprintf(v->name, sizeof v->name, "%.*s", (int)strcspn(name, "\n"), name);
  return 1;
}

static void vma_field(const char *l, struct vma *v) {
  static const char *const pmd[CENSUS_NKINDS] = {
      "AnonHugePages:", "ShmemPmdMapped:", "FilePmdMapped:"};
  if (!strncmp(l, "Rss:", 4)) v->rss_kb = strtoll(l + 4, NULL, 10);
  for (int k = 0; k < CENSUS_NKINDS; k++)
    if (!strncmp(l, pmd[k], strlen(pmd[k]))) v->pmd_kb[k] = strtoll(l + strlen(pmd[k]), NULL, 10);
}

/* Every mapping of pid but the vsyscall page (no VMA: pagemap has nothing behind it). */
static int census_pid(pid_t pid, const struct geometry *g, struct totals *t, struct sb *payload) {
  char path[64];
  struct sb smaps = {0};
  snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
  if (read_file(path, &smaps)) return -1;
  snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
  struct proc_files f = {open(path, O_RDONLY | O_CLOEXEC),
                         open("/proc/kpageflags", O_RDONLY | O_CLOEXEC)};
  int rc = f.pagemap < 0 || f.kpageflags < 0 ? -1 : 0;
  struct census_walk *w = xmalloc(sizeof *w);
  census_init(w, read_entries, &f, g->cont_pages);
  struct vma v;
  int have = 0;
  for (char *l = smaps.p; !rc && l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
    struct vma next;
    if (isxdigit((unsigned char)*l) && vma_header(l, &next)) {
      if (have && strcmp(v.name, "[vsyscall]")) census_vma(w, &v, pid, g, t, payload);
      v = next, have = 1;
    } else if (have) {
      vma_field(l, &v);
    }
  }
  if (!rc && have && strcmp(v.name, "[vsyscall]")) census_vma(w, &v, pid, g, t, payload);
  free(w);
  if (f.pagemap >= 0) close(f.pagemap);
  if (f.kpageflags >= 0) close(f.kpageflags);
  sb_free(&smaps);
  return rc;
}

/* The metrics of a kind with pages: folios and kB by every size the kernel has (and any other
 * order met), PMD-mapped folios, partial folios, contiguous-PTE blocks (arm64). */
static void kind_metrics(struct sb *p, int k, const struct totals *t, const struct geometry *g) {
  const struct census_kind_counts *kc = &t->c.kind[k];
  const char *kind = census_kind_name(k);
  char size[16], key[64];
  for (int o = 0; o < CENSUS_MAX_ORDER; o++) {
    if (!(g->orders & (1u << o)) && !kc->pages[o]) continue;
    census_size_name(g->page_kb << o, size, sizeof size);
    snprintf(key, sizeof key, "%s.%s.folios", kind, size);
    kv_addf(p, key, "%llu", (unsigned long long)kc->folios[o]);
    snprintf(key, sizeof key, "%s.%s.kb", kind, size);
    kv_addf(p, key, "%llu", (unsigned long long)(kc->pages[o] * g->page_kb));
    if ((unsigned)o != g->pmd_order) continue;
    snprintf(key, sizeof key, "%s.%s.pmd_mapped", kind, size);
    kv_addf(p, key, "%llu", (unsigned long long)t->pmd_folios[k]);
  }
  snprintf(key, sizeof key, "%s.partial", kind);
  kv_addf(p, key, "%llu", (unsigned long long)kc->partial_folios);
  snprintf(key, sizeof key, "%s.partial_kb", kind);
  kv_addf(p, key, "%llu", (unsigned long long)(kc->partial_pages * g->page_kb));
  if (!g->cont_pages) return;
  snprintf(key, sizeof key, "%s.cont_pte_blocks", kind);
  kv_addf(p, key, "%llu", (unsigned long long)kc->cont_blocks);
}

static void totals_metrics(struct sb *p, const struct totals *t, const struct geometry *g) {
  for (int k = 0; k < CENSUS_NKINDS; k++) {
    uint64_t pages = t->pmd_folios[k];
    for (int o = 0; o < CENSUS_MAX_ORDER; o++) pages += t->c.kind[k].pages[o];
    if (pages || k == CENSUS_ANON) kind_metrics(p, k, t, g);
  }
  kv_addf(p, "zero_kb", "%llu", (unsigned long long)(t->c.zero_pages * g->page_kb));
  if (t->c.special_pages)
    kv_addf(p, "special_kb", "%llu", (unsigned long long)(t->c.special_pages * g->page_kb));
  if (t->c.hugetlb_pages)
    kv_addf(p, "hugetlb_kb", "%llu", (unsigned long long)(t->c.hugetlb_pages * g->page_kb));
  kv_addf(p, "rss_kb", "%lld", t->rss_kb);
  kv_addf(p, "counted_kb", "%llu", (unsigned long long)(census_rss_pages(&t->c) * g->page_kb));
}

void census_emit(long rep, long index, const pid_t *pids, size_t npids) {
  struct geometry g;
  geometry_read(&g);
  struct totals *t = xmalloc(sizeof *t);
  memset(t, 0, sizeof *t);
  struct sb p = {0}, vmas = {0}, list = {0};
  int bad = 0;
  for (size_t i = 0; i < npids; i++) {
    sb_printf(&list, "%s%d", i ? " " : "", (int)pids[i]);
    if (census_pid(pids[i], &g, t, &vmas)) bad = 1;
  }
  kv_addf(&p, "rep", "%ld", rep);
  kv_addf(&p, "index", "%ld", index);
  kv_add(&p, "pids", list.p ? list.p : "");
  kv_add(&p, "status", bad || t->failed ? "failed" : "ok");
  kv_addf(&p, "page_kb", "%llu", (unsigned long long)g.page_kb);
  kv_addf(&p, "pmd_kb", "%llu", (unsigned long long)(g.pmd_pages * g.page_kb));
  kv_addf(&p, "cont_kb", "%llu", (unsigned long long)(g.cont_pages * g.page_kb));
  totals_metrics(&p, t, &g);
  if (vmas.p) sb_append(&p, vmas.p, vmas.len);
  record_emit_sb("census", &p);
  log_msg("census rep %ld: pids %s, %lld kB Rss, %s", rep, list.p ? list.p : "", t->rss_kb,
          bad || t->failed ? "failed" : "ok");
  free(t);
  sb_free(&p), sb_free(&vmas), sb_free(&list);
}

int census_parse_peak(const char *msg, pid_t self, pid_t *pids, size_t max) {
  if (strncmp(msg, "peak", 4) || (msg[4] && msg[4] != ' ' && msg[4] != '\n')) return -1;
  size_t n = 0;
  for (const char *s = msg + 4; *s && *s != '\n';) {
    if (*s == ' ') {
      s++;
      continue;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno || v <= 0 || v > 4194304 || n >= max ||
        (*end && *end != ' ' && *end != '\n'))
      return -1;
    pids[n++] = (pid_t)v;
    s = end;
  }
  if (n == 0 && max > 0) pids[n++] = self;
  return (int)n;
}
