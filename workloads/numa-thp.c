/* numa-thp: where do first-touch pages land when threads on different NUMA nodes touch one
 * shared region? After seed 002's thp_pthread (PR_SET_THP_DISABLE: "the THP will be stuck on
 * whatever node the chunk was originally referenced from"). PR_SET_THP_DISABLE itself is set
 * by the agent (job line `prctl_thp_disable 1`), not here.
 *
 * Arguments (key=value):
 *   size=256M            bytes of one private anonymous mapping, a multiple of the page size
 *   threads_per_node=1   threads per node that has CPUs
 *   chunk=0              0: each thread writes one contiguous share (in thread order);
 *                        else a multiple of the page size: the region is cut into chunks of
 *                        this size dealt round-robin to the threads (chunk c belongs to
 *                        thread c mod threads), so threads on different nodes share each
 *                        2 MiB range (seed 002's "many remote nodes ... same chunk")
 *
 * Nodes come from /sys/devices/system/node/node<N>/cpulist (no such directory: one node 0
 * with every online CPU). Thread t of a node is pinned (sched_setaffinity) to the node's
 * (t mod ncpus)-th CPU. The threads, in node order, split the region (see chunk); after a
 * start barrier each writes one byte per base page of its part. Then the placement
 * of every page (or every stride-th page when there are more than 1M pages) is queried with
 * move_pages(2) (nodes = NULL: query only).
 * Metrics: nodes, threads, pages, pages_queried, pages_node0 ... pages_node7 (queried pages
 * on that node; only nodes 0..7 are reported, an absent node is 0), remote_pages (queried
 * pages not on the node of the thread that touched them), faults (RUSAGE_SELF minflt delta
 * from barrier release to join), wall_s, user_s, sys_s, rss_kb, anon_huge_kb. Placement
 * metrics are null when move_pages is not available (ENOSYS: kernel without NUMA/MIGRATION).
 * Invariants: written bytes read back; every queried page is present (status >= 0).
 */
#include "common.h"
#include "def_args.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_NODES 64
#define MAX_CPUS 1024
#define REPORT_NODES 8
#define MAX_QUERY (1UL << 20)
#define QUERY_CHUNK 16384

struct node {
  int id;
  int ncpus;
  int cpus[MAX_CPUS];
};

static struct node g_nodes[MAX_NODES];
static int g_nnodes;

/* "0-3,8,10-11" → cpus. 0 or -1 on a malformed list. */
static int parse_cpulist(const char *s, struct node *nd) {
  nd->ncpus = 0;
  while (*s && *s != '\n') {
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s || a < 0) return -1;
    s = end;
    if (*s == '-') {
      b = strtol(s + 1, &end, 10);
      if (end == s + 1 || b < a) return -1;
      s = end;
    }
    for (long c = a; c <= b && nd->ncpus < MAX_CPUS; c++) nd->cpus[nd->ncpus++] = (int)c;
    if (*s == ',')
      s++;
    else if (*s && *s != '\n')
      return -1;
  }
  return 0;
}

static int node_cmp(const void *a, const void *b) {
  return ((const struct node *)a)->id - ((const struct node *)b)->id;
}

static void discover_nodes(void) {
  DIR *d = opendir("/sys/devices/system/node");
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char *end;
    if (strncmp(e->d_name, "node", 4) || !e->d_name[4]) continue;
    long id = strtol(e->d_name + 4, &end, 10);
    if (*end || id < 0) continue;
    if (g_nnodes == MAX_NODES) wl_fail("more than %d NUMA nodes", MAX_NODES);
    char path[300], buf[4096];
    snprintf(path, sizeof path, "/sys/devices/system/node/%s/cpulist", e->d_name);
    FILE *f = fopen(path, "re");
    if (!f) wl_fail("open %s: %s", path, strerror(errno));
    if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
    fclose(f);
    struct node *nd = &g_nodes[g_nnodes++];
    nd->id = (int)id;
    if (parse_cpulist(buf, nd)) wl_fail("%s: cannot parse '%s'", path, buf);
  }
  if (d) closedir(d);
  if (!g_nnodes) { /* no NUMA in this kernel: every online CPU on node 0 */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    g_nnodes = 1;
    g_nodes[0].id = 0;
    for (long c = 0; c < n && c < MAX_CPUS; c++) g_nodes[0].cpus[g_nodes[0].ncpus++] = (int)c;
  }
  qsort(g_nodes, (size_t)g_nnodes, sizeof *g_nodes, node_cmp);
}

struct worker {
  pthread_t tid;
  int node, cpu;
  volatile unsigned char *mem; /* whole region */
  size_t first_page, npages;   /* contiguous share (chunk = 0) */
  size_t index, nthreads, chunk_pages, pages, ps;
  int pin_errno;
};

/* Index of the thread that writes page. */
static size_t owner_of(const struct worker *w, size_t nthreads, size_t page) {
  if (w[0].chunk_pages) return page / w[0].chunk_pages % nthreads;
  size_t lo = 0, hi = nthreads - 1;
  while (lo < hi) { /* last worker whose first_page <= page */
    size_t mid = (lo + hi + 1) / 2;
    if (w[mid].first_page <= page)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static pthread_barrier_t g_ready, g_go;

static unsigned char pattern(size_t page) {
  return (unsigned char)(((page * 131) ^ (page >> 8)) | 1);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(w->cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set)) w->pin_errno = errno;
  pthread_barrier_wait(&g_ready);
  pthread_barrier_wait(&g_go);
  if (!w->chunk_pages) {
    for (size_t i = w->first_page; i < w->first_page + w->npages; i++)
      w->mem[i * w->ps] = pattern(i);
    return NULL;
  }
  size_t step = w->nthreads * w->chunk_pages;
  for (size_t c = w->index * w->chunk_pages; c < w->pages; c += step)
    for (size_t i = c; i < c + w->chunk_pages && i < w->pages; i++) w->mem[i * w->ps] = pattern(i);
  return NULL;
}

/* threads_per_node on each node that lists a CPU. */
static size_t count_threads(long tpn) {
  size_t nthreads = 0;
  for (int i = 0; i < g_nnodes; i++)
    if (g_nodes[i].ncpus) nthreads += (size_t)tpn;
  return nthreads;
}

/* One worker per CPU slot: threads_per_node on each node that lists a CPU, the pages shared out
 * in order (the first pages % nthreads workers get one more). */
static struct worker *plan_workers(unsigned char *mem, size_t nthreads, long tpn, size_t pages,
                                   size_t chunk_pages, size_t ps) {
  struct worker *w = calloc(nthreads, sizeof *w);
  if (!w) wl_fail("calloc: out of memory");
  size_t t = 0, next = 0;
  for (int i = 0; i < g_nnodes; i++)
    for (long k = 0; g_nodes[i].ncpus && k < tpn; k++, t++) {
      size_t share = pages / nthreads + (t < pages % nthreads);
      w[t] = (struct worker){.node = g_nodes[i].id,
                             .cpu = g_nodes[i].cpus[k % g_nodes[i].ncpus],
                             .mem = mem,
                             .first_page = next,
                             .npages = share,
                             .index = t,
                             .nthreads = nthreads,
                             .chunk_pages = chunk_pages,
                             .pages = pages,
                             .ps = ps};
      next += share;
    }

  return w;
}

/* Starts the workers, lets them go together and waits for them: the wall time and the usage
 * around their faults. */
static void run_workers(struct worker *w, size_t nthreads, int64_t *t0, int64_t *t1,
                        struct wl_usage *u0, struct wl_usage *u1) {
  if (pthread_barrier_init(&g_ready, NULL, (unsigned)nthreads + 1) ||
      pthread_barrier_init(&g_go, NULL, (unsigned)nthreads + 1))
    wl_fail("pthread_barrier_init failed");
  for (size_t i = 0; i < nthreads; i++) {
    int e = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
    if (e) wl_fail("pthread_create: %s", strerror(e));
  }
  pthread_barrier_wait(&g_ready);
  *t0 = wl_now_ns();
  *u0 = wl_usage_self();
  pthread_barrier_wait(&g_go);
  for (size_t i = 0; i < nthreads; i++) pthread_join(w[i].tid, NULL);
  *t1 = wl_now_ns();
  *u1 = wl_usage_self();
}

/* Where the pages landed (move_pages with no target nodes: a query), every page up to MAX_QUERY
 * of them, else evenly spaced ones. */
struct placement {
  long long per_node[REPORT_NODES], remote, absent;
  size_t nq;
  int have; /* 0: the kernel has no move_pages */
};
static struct placement query_placement(unsigned char *mem, const struct worker *w, size_t nthreads,
                                        size_t pages, size_t ps) {
  size_t stride = pages > MAX_QUERY ? (pages + MAX_QUERY - 1) / MAX_QUERY : 1;
  const size_t nq = (pages + stride - 1) / stride;
  struct placement pl = {.nq = nq, .have = 1};
  void **addr = malloc(QUERY_CHUNK * sizeof *addr);
  int *status = malloc(QUERY_CHUNK * sizeof *status);
  size_t *owner = malloc(QUERY_CHUNK * sizeof *owner);
  if (!addr || !status || !owner) wl_fail("malloc: out of memory");
  size_t q = 0;
  while (q < nq && pl.have) {
    size_t n = 0;
    for (; n < QUERY_CHUNK && q < nq; n++, q++) {
      size_t page = q * stride;
      addr[n] = mem + page * ps;
      owner[n] = owner_of(w, nthreads, page);
      status[n] = -1;
    }
    long rc = syscall(__NR_move_pages, 0, (unsigned long)n, addr, NULL, status, 0);
    if (rc < 0 && errno == ENOSYS) {
      pl.have = 0;
      break;
    }
    if (rc < 0) wl_fail("move_pages(query %zu pages): %s", n, strerror(errno));
    for (size_t i = 0; i < n; i++) {
      if (status[i] < 0) {
        pl.absent++;
        continue;
      }
      if (status[i] < REPORT_NODES) pl.per_node[status[i]]++;
      pl.remote += status[i] != w[owner[i]].node;
    }
  }
  free(addr);
  free(status);
  free(owner);
  return pl;
}

static void json_placement(struct wl_json *j, const struct placement *pl) {
  for (int n = 0; n < REPORT_NODES; n++) {
    char key[32];
    snprintf(key, sizeof key, "pages_node%d", n);
    wl_json_opt(j, key, pl->have ? pl->per_node[n] : -1);
  }
  wl_json_opt(j, "remote_pages", pl->have ? pl->remote : -1);
}

int main(int argc, char **argv) {
  struct wl_arg spec[] = {
#include "numa-thp.def"
      {NULL, NULL, NULL, NULL, NULL},
  };
  wl_parse_args(argc, argv, spec);
  uint64_t size = wl_arg_size(spec, "size");
  long tpn = wl_param_long(spec, "threads_per_node");
  size_t ps = (size_t)sysconf(_SC_PAGESIZE);
  if (size == 0 || size % ps || size > SIZE_MAX / 2)
    wl_usage("size=%" PRIu64 ": must be a non-zero multiple of the page size %zu", size, ps);
  size_t pages = (size_t)size / ps;
  uint64_t chunk = wl_arg_size(spec, "chunk");
  if (chunk % ps || chunk > size)
    wl_usage("chunk=%" PRIu64 ": must be 0 or a multiple of the page size up to size", chunk);

  discover_nodes();
  const size_t nthreads = count_threads(tpn);
  if (!nthreads) wl_fail("no NUMA node lists a CPU");
  if (nthreads > pages) wl_usage("%zu threads but only %zu pages", nthreads, pages);

  unsigned char *mem =
      mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) wl_fail("mmap %" PRIu64 " bytes: %s", size, strerror(errno));
  struct worker *w = plan_workers(mem, nthreads, tpn, pages, (size_t)chunk / ps, ps);
  int64_t t0, t1;
  struct wl_usage u0, u1;
  run_workers(w, nthreads, &t0, &t1, &u0, &u1);
  for (size_t i = 0; i < nthreads; i++)
    if (w[i].pin_errno)
      wl_fail("sched_setaffinity(cpu %d): %s", w[i].cpu, strerror(w[i].pin_errno));
  wl_peak();
  long rss = wl_smaps_rollup_kb("Rss"), anon_huge = wl_smaps_rollup_kb("AnonHugePages");

  const struct placement pl = query_placement(mem, w, nthreads, pages, ps);

  struct wl_json j = {.len = 0};
  wl_json_int(&j, "nodes", g_nnodes);
  wl_json_int(&j, "threads", (int64_t)nthreads);
  wl_json_int(&j, "chunk", (int64_t)chunk);
  wl_json_int(&j, "pages", (int64_t)pages);
  wl_json_int(&j, "pages_queried", (int64_t)pl.nq);
  json_placement(&j, &pl);
  wl_json_int(&j, "faults", u1.minflt - u0.minflt);
  wl_json_num(&j, "wall_s", (double)(t1 - t0) / 1e9);
  wl_json_num(&j, "user_s", u1.user_s - u0.user_s);
  wl_json_num(&j, "sys_s", u1.sys_s - u0.sys_s);
  wl_json_kb(&j, "rss_kb", rss);
  wl_json_kb(&j, "anon_huge_kb", anon_huge);
  wl_json_print(&j);

  for (size_t i = 0; i < pages; i++)
    if (mem[i * ps] != pattern(i))
      wl_fail("page %zu reads 0x%02x, wrote 0x%02x", i, mem[i * ps], pattern(i));
  if (pl.absent) wl_fail("move_pages: %lld of %zu queried pages not present", pl.absent, pl.nq);
  munmap(mem, (size_t)size);
  free(w);
  wl_ok();
  return 0;
}
