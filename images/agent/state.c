/* The machine's memory state as data (state.h). */
#define _GNU_SOURCE
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "record.h"
#include "sysfs.h"

/* ---------------- buddy free lists and the indices ---------------- */

static int zone_row(struct buddy *b, const char *zone) {
  for (int i = 0; i < b->nzones; i++)
    if (!strcmp(b->zone[i], zone)) return i;
  if (b->nzones == MAX_ZONES) return -1;
  snprintf(b->zone[b->nzones], sizeof b->zone[0], "%s", zone);
  return b->nzones++;
}

/* "Node 0, zone    DMA32    1    2 ..." lines. */
int buddy_read(struct buddy *b) {
  struct sb f = {0};
  memset(b, 0, sizeof *b);
  if (read_file("/proc/buddyinfo", &f)) return -1;
  for (char *line = f.p; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char zone[16];
    int used = 0;
    if (sscanf(line, "Node %*d, zone %15s%n", zone, &used) == 1) {
      int row = zone_row(b, zone);
      char *p = line + used;
      for (int o = 0; row >= 0 && o < MAX_ORDERS; o++) {
        char *end;
        unsigned long long n = strtoull(p, &end, 10);
        if (end == p) break;
        b->count[row][o] += n;
        if (o + 1 > b->norders) b->norders = o + 1;
        p = end;
      }
    }
    line = next;
  }
  sb_free(&f);
  snprintf(b->zone[b->nzones], sizeof b->zone[0], "all");
  for (int z = 0; z < b->nzones; z++)
    for (int o = 0; o < b->norders; o++) b->count[b->nzones][o] += b->count[z][o];
  return b->nzones ? 0 : -1;
}

static void add_buddy(struct sb *p) {
  struct buddy b;
  char key[64];
  if (buddy_read(&b)) return;
  for (int z = 0; z <= b.nzones; z++)
    for (int o = 0; o < b.norders; o++) {
      if (z < b.nzones) {
        snprintf(key, sizeof key, "buddy.%s.%d", b.zone[z], o);
        kv_addf(p, key, "%llu", b.count[z][o]);
      }
      snprintf(key, sizeof key, "unusable.%s.%d", b.zone[z], o);
      kv_addf(p, key, "%d", unusable_permille(b.count[z], b.norders, o));
      snprintf(key, sizeof key, "extfrag.%s.%d", b.zone[z], o);
      kv_addf(p, key, "%d", extfrag_permille(b.count[z], b.norders, o));
    }
}

/* ---------------- pagetypeinfo ---------------- */

/* "Node 0, zone DMA32, type Movable 1 2 ..." (free blocks per migrate type and order, nonzero
 * ones kept) and "Node 0, zone DMA32 <n per type>" after the "Number of blocks type" header. */
static void add_pagetypes(struct sb *p) {
  struct sb f = {0};
  if (read_file("/proc/pagetypeinfo", &f)) return;
  char types[8][24];
  int ntypes = 0, in_blocks = 0;
  char key[96];
  for (char *line = f.p; line && *line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char zone[16], type[24];
    int used = 0;
    if (!strncmp(line, "Number of blocks type", 21)) {
      in_blocks = 1;
      for (char *t = strtok(line + 21, " "); t && ntypes < 8; t = strtok(NULL, " "))
        snprintf(types[ntypes++], sizeof types[0], "%s", t);
    } else if (!in_blocks &&
               sscanf(line, "Node %*d, zone %15[^,], type %23s%n", zone, type, &used) == 2) {
      char *s = line + used;
      for (int o = 0; o < MAX_ORDERS; o++) {
        char *end;
        unsigned long long n = strtoull(s, &end, 10);
        if (end == s) break;
        s = end;
        if (!n) continue;
        snprintf(key, sizeof key, "pagetype.%.15s.%.23s.%d", zone, type, o);
        kv_addf(p, key, "%llu", n);
      }
    } else if (in_blocks && sscanf(line, "Node %*d, zone %15s%n", zone, &used) == 1) {
      char *s = line + used;
      for (int t = 0; t < ntypes; t++) {
        char *end;
        unsigned long long n = strtoull(s, &end, 10);
        if (end == s) break;
        s = end;
        snprintf(key, sizeof key, "pageblocks.%.15s.%.23s", zone, types[t]);
        kv_addf(p, key, "%llu", n);
      }
    }
    line = next;
  }
  sb_free(&f);
}

/* ---------------- swap, zram, the workload cgroup ---------------- */

static long long file_field(const char *path, const char *field, int colon) {
  struct sb f = {0};
  long long v = -1;
  size_t n = strlen(field);
  if (read_file(path, &f) == 0)
    for (char *l = f.p; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
      if (!strncmp(l, field, n) && (colon ? l[n] == ':' : l[n] == ' ')) {
        v = strtoll(l + n + 1, NULL, 10);
        break;
      }
  sb_free(&f);
  return v;
}

static long long file_number(const char *path) {
  struct sb f = {0};
  long long v = -1;
  if (read_file(path, &f) == 0 && f.p && f.p[0] >= '0' && f.p[0] <= '9') v = strtoll(f.p, NULL, 10);
  sb_free(&f);
  return v;
}

static void add_swap(struct sb *p) {
  long long total = file_field("/proc/meminfo", "SwapTotal", 1);
  long long free_kb = file_field("/proc/meminfo", "SwapFree", 1);
  if (total >= 0) kv_addf(p, "swap.total_kb", "%lld", total);
  if (total >= 0 && free_kb >= 0) kv_addf(p, "swap.used_kb", "%lld", total - free_kb);
  struct sb f = {0};
  unsigned long long orig, compr, used;
  /* mm_stat: orig_data_size compr_data_size mem_used_total ... (bytes) */
  if (read_file("/sys/block/zram0/mm_stat", &f) == 0 &&
      sscanf(f.p, "%llu %llu %llu", &orig, &compr, &used) == 3 && orig) {
    kv_addf(p, "zram.orig_kb", "%llu", orig >> 10);
    kv_addf(p, "zram.compr_kb", "%llu", compr >> 10);
    kv_addf(p, "zram.mem_used_kb", "%llu", used >> 10);
  }
  sb_free(&f);
}

/* memory.current, memory.swap.current, memory.peak, memory.events and memory.stat of the
 * workload cgroup as memcg.* (bytes as they are: the cgroup's own unit). */
static void add_memcg(struct sb *p) {
  static const char *const singles[] = {"memory.current", "memory.swap.current", "memory.peak",
                                        "memory.zswap.current"};
  char path[128], key[128];
  for (size_t i = 0; i < sizeof singles / sizeof *singles; i++) {
    snprintf(path, sizeof path, "%s/%s", CGROUP_DIR, singles[i]);
    long long v = file_number(path);
    snprintf(key, sizeof key, "memcg.%s", singles[i] + 7);
    if (v >= 0) kv_addf(p, key, "%lld", v);
  }
  for (int events = 0; events < 2; events++) {
    struct sb f = {0};
    snprintf(path, sizeof path, "%s/%s", CGROUP_DIR, events ? "memory.events" : "memory.stat");
    if (read_file(path, &f)) continue;
    char name[64];
    unsigned long long v;
    for (char *l = f.p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
      if (sscanf(l, "%63s %llu", name, &v) == 2) {
        snprintf(key, sizeof key, "memcg.%s%s", events ? "events." : "", name);
        kv_addf(p, key, "%llu", v);
      }
    sb_free(&f);
  }
}

void state_snapshot(long rep, const char *phase, int cgroup) {
  struct sb p = {0};
  kv_addf(&p, "rep", "%ld", rep);
  kv_add(&p, "phase", phase);
  add_buddy(&p);
  add_pagetypes(&p);
  add_swap(&p);
  if (cgroup) add_memcg(&p);
  record_emit_sb("state", &p);
  sb_free(&p);
}

/* ---------------- single counters (the monitor) ---------------- */

int counter_value(const char *name, long long *v) {
  char path[256];
  long long x = -1;
  if (!strncmp(name, "vmstat.", 7)) {
    x = file_field("/proc/vmstat", name + 7, 0);
  } else if (!strncmp(name, "meminfo.", 8)) {
    x = file_field("/proc/meminfo", name + 8, 1);
  } else if (!strncmp(name, "memcg.", 6)) {
    if (!strcmp(name + 6, "current") || !strcmp(name + 6, "swap.current")) {
      snprintf(path, sizeof path, "%s/memory.%s", CGROUP_DIR, name + 6);
      x = file_number(path);
    } else {
      snprintf(path, sizeof path, "%s/memory.stat", CGROUP_DIR);
      x = file_field(path, name + 6, 0);
    }
  } else if (!strncmp(name, "mthp.", 5)) {
    const char *size = name + 5, *stat = strchr(size, '.');
    if (stat && !strchr(stat + 1, '/')) {
      snprintf(path, sizeof path, "%s/hugepages-%.*s/stats/%s", THP_DIR, (int)(stat - size), size,
               stat + 1);
      x = file_number(path);
    }
  }
  if (x < 0) return -1;
  *v = x;
  return 0;
}
