/* thp-swap-allocator: the kernel's own tools/mm/thp_swap_allocator_test (Barry Song, Linux
 * 6.11+), run unmodified, its rounds turned into metrics.
 *
 * The program comes in the run's job archive as /job/kselftest/thp_swap_allocator_test, built
 * static from the tree the guest's kernel was built from (harness/image/kselftest_builder.h).
 * It maps a 60 MiB region madvised MADV_HUGEPAGE (64 KiB folios with hugepages-64kB enabled),
 * fills it and MADV_PAGEOUTs it (warm-up: the swap device fills up), then runs 100 rounds of
 * random 4 KiB swap-ins (or 64 KiB with -a) of 16 MiB, 256 random MADV_DONTNEED + refaults of
 * 64 KiB, and MADV_PAGEOUT of the whole region, printing per round the increase of
 * hugepages-64kB/stats/swpout and swpout_fallback. Its recipe: a 64 MiB zram as the only swap,
 * 64K `always`, PMD THP `never`.
 *
 * Arguments (key=value):
 *   small_folio=false pass -s: a 4 MiB MADV_NOHUGEPAGE region of small folios swapped in and
 *                     out beside it (mixed orders competing for swap clusters)
 *   aligned_swapin=false  pass -a: swap-ins touch whole 64 KiB blocks, not 4 KiB pages
 *   timeout=1800      seconds the program may run; then it is killed and the run fails
 *
 * Checked before it runs (a failure names what is missing): the program is in the job archive,
 * the guest has swap (machine.swap), hugepages-64kB exists and is not `never` (the program's
 * MADV_HUGEPAGE makes `madvise` enough) and PMD THP is `never` (else the region gets 2 MiB
 * folios and the 64 KiB counters stay 0). The program must exit 0 and print at least one round.
 *
 * Output: each line of the program prefixed "| ", then the metrics line (percentages are
 * 100 * swpout_fallback / (swpout + swpout_fallback); rounds that swapped out nothing count in
 * rounds_idle and in no percentage; null when no round swapped out):
 *   rounds, swpout, swpout_fallback, fallback_pct (pooled over all rounds), fallback_pct_mean
 *   (mean of the rounds' percentages), fallback_pct_min, fallback_pct_max, fallback_pct_first
 *   (round 1), fallback_pct_last (the last round), fallback_pct_d1 .. fallback_pct_d10 (pooled
 *   over each tenth of the rounds, in order: "fallback_pct_d%d"), rounds_no_fallback,
 *   rounds_idle, wall_s, swap_kb (SwapTotal).
 */
#include "common.h"
#include "def_args.h"

#include "app.h"
#include "swap_rounds.h"

#define PROGRAM "/job/kselftest/thp_swap_allocator_test"
#define LOG "/tmp/thp_swap_allocator_test.log"
#define THP "/sys/kernel/mm/transparent_hugepage"
#define MAX_LOG ((size_t)1 << 20)

static struct wl_swap_rounds g_rounds;
static char g_log[MAX_LOG + 1];

/* The bracketed word of a THP `enabled` file ("always [madvise] never" -> madvise) into out;
 * 0 when the file is absent or has none. */
static int thp_setting(const char *path, char *out, size_t len) {
  char buf[256];
  if (wl_read_text(path, buf, sizeof buf) < 0) return 0;
  char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;
  if (!close) return 0;
  snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
  return 1;
}

/* A size's effective setting: its own, or the top-level one when it is `inherit`. */
static void effective_setting(const char *size_kb, char *out, size_t len) {
  char path[128];
  snprintf(path, sizeof path, THP "/hugepages-%skB/enabled", size_kb);
  if (!thp_setting(path, out, len)) wl_fail("%s is missing: no %s kB THP size here", path, size_kb);
  if (!strcmp(out, "inherit") && !thp_setting(THP "/enabled", out, len))
    wl_fail("%s/enabled is unreadable", THP);
}

static void check_preconditions(void) {
  if (access(PROGRAM, X_OK)) wl_fail("%s: %s (not in the job archive)", PROGRAM, strerror(errno));
  const long swap_kb = wl_proc_kb("/proc/meminfo", "SwapTotal");
  if (swap_kb <= 0)
    wl_fail(
        "the guest has no swap (SwapTotal %ld kB): the program swaps out to it; set "
        "machine.swap: {type: zram, size: 64M}",
        swap_kb);
  char mthp[32], pmd[32], pmd_kb[32];
  effective_setting("64", mthp, sizeof mthp);
  if (!strcmp(mthp, "never"))
    wl_fail(
        "hugepages-64kB is never: the region gets no 64 KiB folios; set "
        "hugepages-64kB/enabled: always");
  snprintf(pmd_kb, sizeof pmd_kb, "%zu", wl_pmd_size(2 << 20) >> 10);
  effective_setting(pmd_kb, pmd, sizeof pmd);
  if (strcmp(pmd, "never"))
    wl_fail(
        "PMD THP (hugepages-%skB) is %s: the 60 MiB region would get PMD folios and the 64 "
        "KiB counters would not move; set hugepages-%skB/enabled: never (the test's recipe)",
        pmd_kb, pmd, pmd_kb);
}

static void put_pct(struct wl_json *j, const char *key, double pct) {
  wl_json_num(j, key, pct < 0 ? NAN : pct);
}

/* Runs the program (-s, -a as asked) with its output in LOG; returns its wall time in seconds
 * and fails the run when it outlives timeout_s or ends other than with exit 0. */
static double run_program(int small, int aligned, long timeout_s) {
  char *args[4] = {PROGRAM, NULL, NULL, NULL};
  int n = 1;
  if (small) args[n++] = "-s";
  if (aligned) args[n++] = "-a";
  const int64_t t0 = wl_now_ns();
  const pid_t pid = wl_spawn_logged(args, (struct wl_child){.death_signal = SIGKILL}, LOG);
  int status = 0;
  if (!wl_wait_exit(pid, (int)(timeout_s * 1000), &status)) {
    wl_kill_reap(pid);
    char tail[512];
    wl_fail("thp_swap_allocator_test still running after %ld s, killed; its last lines: %s",
            timeout_s, wl_log_tail(LOG, 2, tail, sizeof tail));
  }
  const double wall = (double)(wl_now_ns() - t0) / 1e9;
  const int fd = open(LOG, O_RDONLY | O_CLOEXEC);
  if (fd < 0) wl_fail("open %s: %s", LOG, strerror(errno));
  wl_read_all(fd, g_log, MAX_LOG);
  close(fd);
  for (const char *p = g_log; *p;) {
    const char *nl = strchr(p, '\n');
    const int len = nl ? (int)(nl - p) : (int)strlen(p);
    printf("| %.*s\n", len, p);
    p += len + (nl ? 1 : 0);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    char what[64], tail[512];
    wl_fail("thp_swap_allocator_test ended with %s: %s",
            wl_describe_status(status, what, sizeof what), wl_log_tail(LOG, 2, tail, sizeof tail));
  }
  return wall;
}

static void print_rounds(double wall) {
  const struct wl_swap_summary all = wl_swap_summarize(&g_rounds, 0, g_rounds.n);
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "rounds", (int64_t)all.rounds);
  wl_json_int(&j, "swpout", (int64_t)all.swpout);
  wl_json_int(&j, "swpout_fallback", (int64_t)all.fallback);
  put_pct(&j, "fallback_pct", all.pooled_pct);
  put_pct(&j, "fallback_pct_mean", all.mean_pct);
  put_pct(&j, "fallback_pct_min", all.min_pct);
  put_pct(&j, "fallback_pct_max", all.max_pct);
  put_pct(&j, "fallback_pct_first",
          wl_swap_pct(g_rounds.round[0].swpout, g_rounds.round[0].fallback));
  const struct wl_swap_round *last = &g_rounds.round[g_rounds.n - 1];
  put_pct(&j, "fallback_pct_last", wl_swap_pct(last->swpout, last->fallback));
  for (size_t k = 0; k < WL_SWAP_DECILES; k++) {
    char key[32];
    snprintf(key, sizeof key, "fallback_pct_d%zu", k + 1);
    const struct wl_swap_summary d = wl_swap_decile(&g_rounds, k);
    put_pct(&j, key, d.rounds ? d.pooled_pct : -1);
  }
  wl_json_int(&j, "rounds_no_fallback", (int64_t)all.no_fallback);
  wl_json_int(&j, "rounds_idle", (int64_t)all.idle);
  wl_json_num(&j, "wall_s", wall);
  wl_json_kb(&j, "swap_kb", wl_proc_kb("/proc/meminfo", "SwapTotal"));
  wl_json_print(&j);
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "thp-swap-allocator.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  const int small = wl_arg_bool(spec, "small_folio");
  const int aligned = wl_arg_bool(spec, "aligned_swapin");
  const long timeout_s = wl_param_long(spec, "timeout");
  check_preconditions();

  const double wall = run_program(small, aligned, timeout_s);
  wl_swap_parse(g_log, &g_rounds);
  if (!g_rounds.n) wl_fail("thp_swap_allocator_test printed no round (\"Iteration N: ...\")");
  if (g_rounds.out_of_order) wl_fail("%zu rounds out of order", g_rounds.out_of_order);
  print_rounds(wall);
  wl_ok();
  return 0;
}
