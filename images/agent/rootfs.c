/* foliolab guest agent: entering a Debian root filesystem (rootfs.h). */
#define _GNU_SOURCE
#include "rootfs.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "record.h"

#define DEVICE_WAIT_MS 20000 /* virtio-blk probes before init runs; slack for slow TCG guests */
#define GUEST_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) && errno == EINTR) {
  }
}

static void wait_for_device(const char *device) {
  for (int waited = 0; access(device, F_OK); waited += 50) {
    if (waited >= DEVICE_WAIT_MS)
      fail_run("rootfs",
               "%s did not appear within %d s: no root disk attached, or the kernel lacks "
               "CONFIG_VIRTIO_BLK",
               device, DEVICE_WAIT_MS / 1000);
    sleep_ms(50);
  }
}

/* mkdir -p of one level below ROOTFS_MOUNT; an existing directory is fine. */
static void make_dir(const char *path, mode_t mode) {
  if (mkdir(path, mode) && errno != EEXIST)
    fail_run("rootfs", "mkdir %s: %s", path, strerror(errno));
}

static void bind_mount(const char *from, const char *to) {
  make_dir(to, 0755);
  if (mount(from, to, NULL, MS_BIND | MS_REC, NULL))
    fail_run("rootfs", "bind %s on %s: %s", from, to, strerror(errno));
}

static void tmpfs(const char *to, const char *options) {
  make_dir(to, 0755);
  if (mount("tmpfs", to, "tmpfs", MS_NOSUID | MS_NODEV, options))
    fail_run("rootfs", "tmpfs on %s: %s", to, strerror(errno));
}

/* `lo` up: servers in the image listen on 127.0.0.1. Without CONFIG_INET there is no `lo`. */
static void loopback_up(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    log_msg("rootfs: no IPv4 socket (%s): loopback stays down", strerror(errno));
    return;
  }
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(fd, SIOCSIFFLAGS, &ifr)) fail_run("rootfs", "bringing up lo: %s", strerror(errno));
  } else {
    log_msg("rootfs: no loopback interface: %s", strerror(errno));
  }
  close(fd);
}

void rootfs_enter(const char *device) {
  wait_for_device(device);
  make_dir(ROOTFS_MOUNT, 0755);
  if (mount(device, ROOTFS_MOUNT, "ext4", MS_NOATIME, NULL))
    fail_run("rootfs", "mount %s (ext4) on %s: %s", device, ROOTFS_MOUNT, strerror(errno));
  bind_mount("/dev", ROOTFS_MOUNT "/dev");
  bind_mount("/proc", ROOTFS_MOUNT "/proc");
  bind_mount("/sys", ROOTFS_MOUNT "/sys");
  bind_mount("/workloads", ROOTFS_MOUNT "/workloads");
  bind_mount("/job", ROOTFS_MOUNT "/job");
  tmpfs(ROOTFS_MOUNT "/tmp", "mode=1777");
  tmpfs(ROOTFS_MOUNT "/run", "mode=0755");
  tmpfs(ROOTFS_MOUNT "/dev/shm", "mode=1777");
  if (chroot(ROOTFS_MOUNT) || chdir("/"))
    fail_run("rootfs", "chroot %s: %s", ROOTFS_MOUNT, strerror(errno));
  setenv("PATH", GUEST_PATH, 1);
  setenv("HOME", "/root", 1);
  setenv("LANG", "C.UTF-8", 1);
  loopback_up();
  log_msg("rootfs: %s mounted and entered", device);
}
