/* foliolab guest agent: the folio census of one mapping (census.h). */
#include "census.h"

#include <stdio.h>
#include <string.h>

#define WINDOW ((uint64_t)(sizeof(((struct census_walk *)0)->win) / sizeof(uint64_t)))
#define CHUNK 512 /* pagemap entries read at once */

void census_init(struct census_walk *w, census_read_fn read, void *ctx, unsigned cont_pages) {
  memset(w, 0, sizeof *w);
  w->read = read;
  w->ctx = ctx;
  w->cont_pages = cont_pages > 1 ? cont_pages : 0;
}

/* The kpageflags entry of pfn, read a window at a time: 0, or -1 when the read failed. A pfn
 * beyond the end of the file (past the last memory) has no flags (0). */
static int flags_of(struct census_walk *w, uint64_t pfn, uint64_t *f) {
  if (pfn < w->win_base || pfn >= w->win_base + w->win_n) {
    const uint64_t base = pfn & ~(WINDOW - 1);
    const long n = w->read(w->ctx, CENSUS_KPAGEFLAGS, base, w->win, WINDOW);
    if (n < 0) {
      w->failed = 1;
      return -1;
    }
    w->win_base = base;
    w->win_n = (size_t)n;
  }
  *f = pfn < w->win_base + w->win_n ? w->win[pfn - w->win_base] : 0;
  return 0;
}

/* A large folio's order from its head: tails run up to head + 2^order - 1 (folios are naturally
 * aligned, so head + 2^k is a tail exactly while 2^k < 2^order). */
static unsigned folio_order(struct census_walk *w, uint64_t head) {
  unsigned k = 0;
  uint64_t f;
  while (k + 1 < CENSUS_MAX_ORDER && !flags_of(w, head + (1ULL << k), &f) && (f & CENSUS_KPF_TAIL))
    k++;
  return k;
}

/* The head of the folio a tail page belongs to: the first head met aligning pfn down to 2^k,
 * k = 1, 2, ... (every aligned pfn between the folio's head and the tail is one of its tails).
 * 0, or -1 when none is found (a compound page that is no folio). */
static int folio_head(struct census_walk *w, uint64_t pfn, uint64_t *head) {
  for (unsigned k = 1; k < CENSUS_MAX_ORDER; k++) {
    const uint64_t q = pfn & ~((1ULL << k) - 1);
    uint64_t f;
    if (flags_of(w, q, &f)) return -1;
    if (f & CENSUS_KPF_HEAD) {
      *head = q;
      return 0;
    }
  }
  return -1;
}

/* The large folio being counted, and the virtually and physically contiguous run of its pages
 * the walk is in. */
struct folio_acc {
  int active;
  uint64_t head, nr, mapped;
  unsigned order;
  enum census_kind kind;
  uint64_t run_v, run_p, run_len;
};

/* Aligned blocks of cont_pages whole inside the run, when virtual and physical offsets agree. */
static void close_run(const struct census_walk *w, struct folio_acc *a, struct census_counts *c) {
  const uint64_t nr = w->cont_pages;
  if (nr && a->run_len >= nr && ((a->run_v ^ a->run_p) & (nr - 1)) == 0) {
    const uint64_t first = (a->run_v + nr - 1) & ~(nr - 1), end = a->run_v + a->run_len;
    if (first + nr <= end) c->kind[a->kind].cont_blocks += (end - first) / nr;
  }
  a->run_len = 0;
}

static void close_folio(const struct census_walk *w, struct folio_acc *a, struct census_counts *c) {
  if (!a->active) return;
  close_run(w, a, c);
  struct census_kind_counts *k = &c->kind[a->kind];
  k->pages[a->order] += a->mapped;
  if (a->mapped >= a->nr) {
    k->folios[a->order]++;
  } else {
    k->partial_folios++;
    k->partial_pages += a->mapped;
  }
  a->active = 0;
}

static enum census_kind kind_of(uint64_t f) {
  if (f & CENSUS_KPF_ANON) return CENSUS_ANON;
  return (f & CENSUS_KPF_SWAPBACKED) ? CENSUS_SHMEM : CENSUS_FILE;
}

/* One page of a large folio (head or tail) at virtual page v, pfn p. */
static void large_page(struct census_walk *w, struct folio_acc *a, struct census_counts *c,
                       uint64_t v, uint64_t p, uint64_t f) {
  if (a->active && p >= a->head && p < a->head + a->nr) {
    a->mapped++;
    if (v == a->run_v + a->run_len && p == a->run_p + a->run_len) {
      a->run_len++;
      return;
    }
    close_run(w, a, c);
  } else {
    close_folio(w, a, c);
    uint64_t head = p;
    if (!(f & CENSUS_KPF_HEAD) && folio_head(w, p, &head)) {
      c->special_pages++;
      return;
    }
    const unsigned order = folio_order(w, head);
    *a = (struct folio_acc){.active = 1,
                            .head = head,
                            .nr = 1ULL << order,
                            .mapped = 1,
                            .order = order,
                            .kind = kind_of(f)};
  }
  a->run_v = v;
  a->run_p = p;
  a->run_len = 1;
}

/* One present page: a folio's page, the zero page or a page no folio of the mapping holds. */
static void present_page(struct census_walk *w, struct folio_acc *a, struct census_counts *c,
                         uint64_t v, uint64_t p) {
  uint64_t f;
  if (flags_of(w, p, &f)) return;
  if (!(f & CENSUS_KPF_MMAP) || (f & CENSUS_KPF_HUGE)) {
    close_folio(w, a, c);
    if (f & CENSUS_KPF_ZERO_PAGE)
      c->zero_pages++;
    else if (f & CENSUS_KPF_HUGE)
      c->hugetlb_pages++;
    else
      c->special_pages++;
    return;
  }
  if (f & (CENSUS_KPF_HEAD | CENSUS_KPF_TAIL)) {
    large_page(w, a, c, v, p, f);
    return;
  }
  close_folio(w, a, c);
  struct census_kind_counts *k = &c->kind[kind_of(f)];
  k->folios[0]++;
  k->pages[0]++;
}

int census_mapping(struct census_walk *w, uint64_t start, uint64_t end, struct census_counts *c) {
  struct folio_acc a = {0};
  uint64_t pm[CHUNK];
  for (uint64_t v = start; v < end && !w->failed;) {
    const size_t want = end - v < CHUNK ? (size_t)(end - v) : CHUNK;
    const long n = w->read(w->ctx, CENSUS_PAGEMAP, v, pm, want);
    if (n != (long)want) {
      w->failed = 1;
      break;
    }
    for (size_t i = 0; i < want && !w->failed; i++) {
      if (pm[i] & CENSUS_PM_PRESENT) present_page(w, &a, c, v + i, pm[i] & CENSUS_PM_PFN_MASK);
    }
    v += want;
  }
  close_folio(w, &a, c);
  return w->failed ? -1 : 0;
}

uint64_t census_rss_pages(const struct census_counts *c) {
  uint64_t n = 0;
  for (int k = 0; k < CENSUS_NKINDS; k++)
    for (int o = 0; o < CENSUS_MAX_ORDER; o++) n += c->kind[k].pages[o];
  return n;
}

const char *census_kind_name(enum census_kind k) {
  static const char *const names[CENSUS_NKINDS] = {"anon", "shmem", "file"};
  return (unsigned)k < CENSUS_NKINDS ? names[k] : "?";
}

void census_size_name(uint64_t kb, char *buf, size_t len) {
  if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
    snprintf(buf, len, "%lluG", (unsigned long long)(kb >> 20));
  else if (kb >= 1024 && kb % 1024 == 0)
    snprintf(buf, len, "%lluM", (unsigned long long)(kb >> 10));
  else
    snprintf(buf, len, "%lluK", (unsigned long long)kb);
}
