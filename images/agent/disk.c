/* The run's own disks by serial (disk.h). */
#define _GNU_SOURCE
#include "disk.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base.h"

int disk_by_serial(const char *serial, char *dev, size_t len) {
  DIR *d = opendir("/sys/block");
  struct dirent *e;
  struct sb s = {0}, path = {0};
  int found = -1;
  while (d && found && (e = readdir(d))) {
    if (strncmp(e->d_name, "vd", 2)) continue;
    path.len = 0;
    sb_printf(&path, "/sys/block/%s/serial", e->d_name);
    if (read_file(path.p, &s)) continue;
    strip_newlines(&s);
    if (strcmp(s.p, serial)) continue;
    snprintf(dev, len, "/dev/%.32s", e->d_name);
    path.len = 0;
    sb_printf(&path, "/sys/block/%s/queue/rotational", e->d_name);
    int fd = open(path.p, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      if (write(fd, "0", 1) != 1) log_msg("%s: not marked non-rotational", dev);
      close(fd);
    }
    found = 0;
  }
  if (d) closedir(d);
  sb_free(&s), sb_free(&path);
  return found;
}
