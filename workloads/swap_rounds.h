/* foliolab workloads: reads the rounds tools/mm/thp_swap_allocator_test (Linux 6.11+, Barry
 * Song) prints, one line per round:
 *
 *   Iteration 7: swpout inc: 152, swpout fallback inc: 76, Fallback percentage: 33.33%
 *
 * "swpout inc" is the round's increase of hugepages-64kB/stats/swpout (64 KiB folios swapped
 * out whole), "swpout fallback inc" that of swpout_fallback (folios split before swap-out
 * because no free swap cluster of their order was found). The percentage is recomputed here
 * from the two counts: the program prints nan for a round that swapped out nothing.
 *
 * Header only, C11 + libc, and valid C++ (a unit test of the harness includes it): no other
 * foliolab header. The text is the guest's own program output; lines that are not rounds are
 * skipped and the rounds are bounded.
 */
#ifndef FOLIOLAB_WORKLOAD_SWAP_ROUNDS_H
#define FOLIOLAB_WORKLOAD_SWAP_ROUNDS_H

#include <stdio.h>
#include <string.h>

#define WL_SWAP_MAX_ROUNDS 10000
#define WL_SWAP_DECILES 10

struct wl_swap_round {
  long index; /* the program's iteration number */
  unsigned long long swpout, fallback;
};

struct wl_swap_rounds {
  struct wl_swap_round round[WL_SWAP_MAX_ROUNDS];
  size_t n;
  size_t out_of_order; /* rounds whose number is not the previous one's + 1 */
};

/* One line: 1 and *r when it is a round, 0 otherwise. */
static inline int wl_swap_parse_line(const char *line, struct wl_swap_round *r) {
  long index;
  unsigned long long swpout, fallback;
  int end = 0;
  if (sscanf(line, "Iteration %ld: swpout inc: %llu, swpout fallback inc: %llu,%n", &index, &swpout,
             &fallback, &end) != 3 ||
      end == 0)
    return 0;
  r->index = index;
  r->swpout = swpout;
  r->fallback = fallback;
  return 1;
}

/* Every round of text (NUL-terminated, lines split on '\n'), in order, at most
 * WL_SWAP_MAX_ROUNDS. */
static inline void wl_swap_parse(const char *text, struct wl_swap_rounds *out) {
  char line[512];
  out->n = 0;
  out->out_of_order = 0;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    size_t keep = len < sizeof line - 1 ? len : sizeof line - 1;
    memcpy(line, p, keep);
    line[keep] = '\0';
    p += len + (nl ? 1 : 0);
    struct wl_swap_round r;
    if (!wl_swap_parse_line(line, &r) || out->n == WL_SWAP_MAX_ROUNDS) continue;
    if (r.index != (out->n ? out->round[out->n - 1].index + 1 : 1)) out->out_of_order++;
    out->round[out->n++] = r;
  }
}

/* Summary of rounds [from, to): counts summed, and the fallback percentage of the pooled counts
 * (100 * fallback / (swpout + fallback); -1 when nothing was swapped out). */
struct wl_swap_summary {
  unsigned long long swpout, fallback;
  double pooled_pct;
  double mean_pct, min_pct, max_pct; /* over rounds that swapped out (-1: none did) */
  size_t rounds, idle, no_fallback;  /* idle: swapped out nothing; no_fallback: 0 % */
};

static inline double wl_swap_pct(unsigned long long swpout, unsigned long long fallback) {
  return swpout + fallback ? 100.0 * (double)fallback / (double)(swpout + fallback) : -1;
}

static inline struct wl_swap_summary wl_swap_summarize(const struct wl_swap_rounds *r, size_t from,
                                                       size_t to) {
  struct wl_swap_summary s;
  memset(&s, 0, sizeof s);
  s.mean_pct = s.min_pct = s.max_pct = -1;
  double sum = 0;
  size_t counted = 0;
  for (size_t i = from; i < to && i < r->n; i++) {
    const struct wl_swap_round *x = &r->round[i];
    s.swpout += x->swpout;
    s.fallback += x->fallback;
    s.rounds++;
    const double pct = wl_swap_pct(x->swpout, x->fallback);
    if (pct < 0) {
      s.idle++;
      continue;
    }
    if (x->fallback == 0) s.no_fallback++;
    sum += pct;
    if (!counted || pct < s.min_pct) s.min_pct = pct;
    if (!counted || pct > s.max_pct) s.max_pct = pct;
    counted++;
  }
  if (counted) s.mean_pct = sum / (double)counted;
  s.pooled_pct = wl_swap_pct(s.swpout, s.fallback);
  return s;
}

/* The rounds of tenth k (0..9): [k*n/10, (k+1)*n/10). */
static inline struct wl_swap_summary wl_swap_decile(const struct wl_swap_rounds *r, size_t k) {
  return wl_swap_summarize(r, k * r->n / WL_SWAP_DECILES, (k + 1) * r->n / WL_SWAP_DECILES);
}

#endif
