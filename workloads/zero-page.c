/* zero-page: seed 004's huge-zero-page demonstration ("Introduce huge zero page").
 *
 * Arguments (key=value):
 *   size=200M   bytes of a posix_memalign(2 MiB) buffer, a multiple of 4096
 *
 * Reads one byte every 4 KiB of the fresh buffer (each must be zero), then, while the buffer
 * is still allocated, reports:
 *   vmrss_kb            VmRSS of /proc/self/status (the huge zero page is not counted in it)
 *   anon_huge_kb        AnonHugePages of /proc/self/smaps_rollup
 *   thp_zero_page_alloc /proc/vmstat delta over the reads (null if the counter is absent;
 *                       it counts allocations of the huge zero page, not maps: 0 when the
 *                       kernel already had one)
 *   faults              RUSAGE_SELF ru_minflt delta over the reads
 *   reads, size, wall_s, user_s, sys_s
 * Invariants: every byte read is zero, faults > 0.
 */
#include "common.h"
#include "def_args.h"

#include <unistd.h>

#define ALIGN_2M ((size_t)2 << 20)
#define STRIDE ((size_t)4096)

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "zero-page.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  uint64_t size = wl_arg_size(spec, "size");
  if (size == 0 || size % STRIDE || size > SIZE_MAX / 2)
    wl_usage("size=%" PRIu64 ": must be a non-zero multiple of %zu", size, STRIDE);

  volatile char *p;
  void *mem;
  int e = posix_memalign(&mem, ALIGN_2M, (size_t)size);
  if (e) wl_fail("posix_memalign(2M, %" PRIu64 "): %s", size, strerror(e));
  p = mem;

  long long zp0 = wl_vmstat("thp_zero_page_alloc");
  int64_t t0 = wl_now_ns();
  struct wl_usage u0 = wl_usage_self();
  size_t reads = 0, nonzero = 0;
  for (size_t i = 0; i < (size_t)size; i += STRIDE, reads++)
    if (p[i] != 0) nonzero++;
  struct wl_usage u1 = wl_usage_self();
  int64_t t1 = wl_now_ns();
  long long zp1 = wl_vmstat("thp_zero_page_alloc");
  wl_peak();
  long vmrss = wl_status_kb("VmRSS");
  long anon_huge = wl_smaps_rollup_kb("AnonHugePages");

  long faults = u1.minflt - u0.minflt;
  struct wl_json j = {.len = 0};
  wl_json_int(&j, "size", (int64_t)size);
  wl_json_int(&j, "reads", (int64_t)reads);
  wl_json_int(&j, "faults", faults);
  wl_json_kb(&j, "vmrss_kb", vmrss);
  wl_json_kb(&j, "anon_huge_kb", anon_huge);
  wl_json_opt(&j, "thp_zero_page_alloc", wl_delta(zp0, zp1));
  wl_json_num(&j, "wall_s", (double)(t1 - t0) / 1e9);
  wl_json_num(&j, "user_s", u1.user_s - u0.user_s);
  wl_json_num(&j, "sys_s", u1.sys_s - u0.sys_s);
  wl_json_print(&j);
  if (nonzero) wl_fail("%zu of %zu bytes read from the fresh buffer are not zero", nonzero, reads);
  if (faults <= 0) wl_fail("no minor faults counted (%ld)", faults);
  free(mem);
  wl_ok();
  return 0;
}
