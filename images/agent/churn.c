/* Page-cache churn on the scratch disk (churn.h). */
#define _GNU_SOURCE
#include "churn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "disk.h"
#include "state.h"

#define FILES_PER_DIR 512

static unsigned long long next_random(unsigned long long *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static unsigned long long meminfo_kb(const char *field) {
  char name[64];
  long long v;
  snprintf(name, sizeof name, "meminfo.%s", field);
  return counter_value(name, &v) ? 0 : (unsigned long long)v;
}

static unsigned long long nfiles(const struct prep *p) { return p->churn_bytes / p->file_bytes; }

/* /scratch/<step>/d<dir>/f<file>: 512 files a directory, as fio's layout spreads them. */
static void file_path(char *out, size_t len, int index, unsigned long long i) {
  snprintf(out, len, SCRATCH_DIR "/%d/d%04llu/f%06llu", index, i / FILES_PER_DIR, i);
}

static int mount_scratch(char *why, size_t len) {
  char dev[64];
  if (disk_by_serial(SCRATCH_SERIAL, dev, sizeof dev))
    return snprintf(why, len, "no virtio disk with serial %s in /sys/block", SCRATCH_SERIAL), -1;
  if (mkdir(SCRATCH_DIR, 0755) && errno != EEXIST)
    return snprintf(why, len, "mkdir %s: %s", SCRATCH_DIR, strerror(errno)), -1;
  if (mount(dev, SCRATCH_DIR, "ext4", MS_NOATIME, NULL) && errno != EBUSY)
    return snprintf(why, len, "mount %s (ext4) on %s: %s", dev, SCRATCH_DIR, strerror(errno)), -1;
  return 0;
}

static int write_files(const struct prep *p, int index, char *buf, struct churn_result *r,
                       char *why, size_t len) {
  char path[128];
  for (unsigned long long i = 0; i < nfiles(p); i++) {
    file_path(path, sizeof path, index, i);
    if (i % FILES_PER_DIR == 0) {
      *strrchr(path, '/') = '\0';
      if (mkdir(path, 0755) && errno != EEXIST)
        return snprintf(why, len, "mkdir %s: %s", path, strerror(errno)), -1;
      file_path(path, sizeof path, index, i);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ssize_t n = fd < 0 ? -1 : write(fd, buf, p->file_bytes);
    int err = errno;
    if (fd >= 0) close(fd);
    if (n != (ssize_t)p->file_bytes)
      return snprintf(why, len, "writing %s (file %llu of %llu): %s", path, i + 1, nfiles(p),
                      n < 0 ? strerror(err) : "short write"),
             -1;
    r->files++, r->written += p->file_bytes;
  }
  sync();
  return 0;
}

/* One whole file, chosen by the seed, read into buf; 0 or -1. */
static int read_one(const struct prep *p, int index, unsigned long long *seed, char *buf) {
  char path[128];
  file_path(path, sizeof path, index, next_random(seed) % nfiles(p));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, p->file_bytes);
  close(fd);
  return n == (ssize_t)p->file_bytes ? 0 : -1;
}

static unsigned long long read_seed(const struct prep *p, int index) {
  return p->seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)index + 1;
}

int churn_lay_out(const struct prep *p, int index, struct churn_result *r, char *why, size_t len) {
  char dir[64];
  if (mount_scratch(why, len)) return -1;
  snprintf(dir, sizeof dir, SCRATCH_DIR "/%d", index);
  if (mkdir(dir, 0755) && errno != EEXIST)
    return snprintf(why, len, "mkdir %s: %s", dir, strerror(errno)), -1;
  char *buf = xmalloc(p->file_bytes);
  memset(buf, 0x5a, p->file_bytes);
  r->slab_before_kb = meminfo_kb("Slab");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = write_files(p, index, buf, r, why, len);
  unsigned long long seed = read_seed(p, index);
  for (long pass = 0; !rc && pass < p->passes; pass++) {
    for (unsigned long long i = 0; i < nfiles(p); i++, r->reads++) {
      if (read_one(p, index, &seed, buf)) {
        snprintf(why, len, "reading file %llu of the churn: %s", r->reads, strerror(errno));
        rc = -1;
        break;
      }
    }
  }
  free(buf);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  r->ms =
      (unsigned long long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
  r->cached_kb = meminfo_kb("Cached");
  r->slab_kb = meminfo_kb("Slab");
  return rc;
}

void churn_forever(const struct prep *p, int index) {
  char *buf = xmalloc(p->file_bytes);
  unsigned long long seed = read_seed(p, index) ^ 0xbac6ULL;
  for (;;) {
    if (read_one(p, index, &seed, buf)) pause(); /* the disk went away: the guest is ending */
  }
}
