/* tlb: random pointer chase, a TLB-reach probe (THP vs base pages).
 *
 * Arguments (key=value):
 *   size=256M          bytes of one private anonymous mapping, a multiple of the page size
 *   stride=page        page | line: one element per base page (at a pseudo-random 64-byte
 *                      line inside it, so elements do not all share cache sets) or one per
 *                      64-byte line
 *   accesses=2000000   dependent loads timed (1..10^10)
 *   madvise=none       none | hugepage | nohugepage over the mapping before it is written
 *   seed=1             PRNG seed of the permutation
 *
 * The elements form one random cycle (Sattolo's algorithm); each holds the address of the
 * next. Building the cycle writes every element (so all faults happen before timing). The
 * chase of `accesses` steps is timed with CLOCK_MONOTONIC. Under TCG this is emulation
 * timing: the host says so; the workload just measures.
 * Metrics: size, stride_bytes, elements, accesses, ns_per_access, wall_s, setup_s,
 *   setup_faults (minflt during setup), rss_kb, anon_huge_kb (smaps_rollup after setup).
 * Invariants: the chase stays inside the cycle: walking `elements` steps from the start
 * visits only element addresses and returns to the start exactly then, not before (checked
 * after timing, up to 2^26 elements), and the timed chase ends where the permutation says.
 */
#include "common.h"
#include "def_args.h"

#include <unistd.h>

#define LINE 64
#define MAX_VERIFY ((size_t)1 << 26)

static uint64_t g_rng;

static uint64_t rng_next(void) /* xorshift64* */
{
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 0x2545F4914F6CDD1DULL;
}

static size_t g_stride, g_ps;

/* Byte offset of element i inside the mapping. */
static size_t elem_off(size_t i) {
  if (g_stride == LINE) return i * LINE;
  size_t lines = g_ps / LINE;
  return i * g_ps + ((i * 0x9E3779B97F4A7C15ULL) >> 40) % lines * LINE;
}

/* Links the n elements of `mem` into one random cycle (Sattolo: uniformly random single cycle over
 * 0..n-1) and returns it as the mapping i -> perm[i] (the successor of i). */
static uint32_t *link_cycle(unsigned char *mem, size_t n) {
  uint32_t *perm = malloc(n * sizeof *perm);
  if (!perm || n > UINT32_MAX) wl_fail("malloc %zu indices: out of memory", n);
  for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t k = (size_t)(rng_next() % i); /* k < i: Sattolo, not Fisher-Yates */
    uint32_t tmp = perm[i];
    perm[i] = perm[k];
    perm[k] = tmp;
  }
  /* perm is a cyclic permutation as a mapping i -> perm[i]. */
  for (size_t i = 0; i < n; i++) *(void **)(mem + elem_off(i)) = mem + elem_off(perm[i]);
  return perm;
}

/* The chase ended where `accesses` steps of perm from 0 lead (accesses mod n steps), and, for a
 * buffer small enough, the links form one cycle through every element. */
static void verify_chase(unsigned char *mem, uint64_t size, size_t n, const uint32_t *perm,
                         void *end, long accesses) {
  void *start = mem + elem_off(0);
  /* Expected end: perm applied `accesses` times to 0 (accesses mod n steps). */
  size_t e = 0;
  for (size_t i = 0; i < (size_t)((uint64_t)accesses % n); i++) e = perm[e];
  if (end != mem + elem_off(e))
    wl_fail("chase ended at offset %td, expected element %zu", (unsigned char *)end - mem, e);
  if (n <= MAX_VERIFY) {
    void **q = start;
    for (size_t i = 1; i <= n; i++) {
      unsigned char *nx = *q;
      if (nx < mem || nx >= mem + size)
        wl_fail("element at offset %td points outside the buffer", (unsigned char *)q - mem);
      if ((void *)nx == start && i != n) wl_fail("cycle closes after %zu of %zu elements", i, n);
      if (i == n && (void *)nx != start)
        wl_fail("walk of %zu elements did not return to the start", n);
      q = (void **)nx;
    }
  }
}

int main(int argc, char **argv) {
  static const char *const strides[] = {"page", "line", NULL};
  struct wl_arg spec[] = {
#include "tlb.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  uint64_t size = wl_arg_size(spec, "size");
  g_ps = (size_t)sysconf(_SC_PAGESIZE);
  g_stride = wl_arg_choice(spec, "stride", strides) == 0 ? g_ps : LINE;
  long accesses = wl_param_long(spec, "accesses");
  int advice = wl_arg_choice(spec, "madvise", wl_madvise_names);
  g_rng = (uint64_t)wl_param_long(spec, "seed");
  if (size == 0 || size % g_ps || size > SIZE_MAX / 2)
    wl_usage("size=%" PRIu64 ": must be a non-zero multiple of the page size %zu", size, g_ps);
  size_t n = (size_t)size / g_stride;
  if (n < 2) wl_usage("size=%" PRIu64 ": fewer than 2 elements", size);

  unsigned char *mem =
      mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) wl_fail("mmap %" PRIu64 " bytes: %s", size, strerror(errno));
  wl_apply_madvise(mem, (size_t)size, advice);

  /* Sattolo: a uniformly random single cycle over 0..n-1; next[i] = successor of i. */
  int64_t s0 = wl_now_ns();
  struct wl_usage u0 = wl_usage_self();
  uint32_t *perm = link_cycle(mem, n);
  struct wl_usage u1 = wl_usage_self();
  int64_t s1 = wl_now_ns();
  wl_peak();
  long rss = wl_smaps_rollup_kb("Rss"), anon_huge = wl_smaps_rollup_kb("AnonHugePages");

  void *start = mem + elem_off(0);
  void *volatile *p = start;
  int64_t t0 = wl_now_ns();
  for (long i = 0; i < accesses; i++) p = *p;
  int64_t t1 = wl_now_ns();
  void *end = (void *)p;

  verify_chase(mem, size, n, perm, end, accesses);
  free(perm);

  double wall = (double)(t1 - t0) / 1e9;
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "size", (int64_t)size);
  wl_json_int(&j, "stride_bytes", (int64_t)g_stride);
  wl_json_int(&j, "elements", (int64_t)n);
  wl_json_int(&j, "accesses", accesses);
  wl_json_num(&j, "ns_per_access", (double)(t1 - t0) / (double)accesses);
  wl_json_num(&j, "wall_s", wall);
  wl_json_num(&j, "setup_s", (double)(s1 - s0) / 1e9);
  wl_json_int(&j, "setup_faults", u1.minflt - u0.minflt);
  wl_json_kb(&j, "rss_kb", rss);
  wl_json_kb(&j, "anon_huge_kb", anon_huge);
  wl_json_print(&j);
  munmap(mem, (size_t)size);
  wl_ok();
  return 0;
}
