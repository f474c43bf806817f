/* foliolab guest agent: the Debian root filesystem of a `rootfs` job (machine.image). Uses base
 * and record (fail_run); called by agent. */
#ifndef FOLIOLAB_AGENT_ROOTFS_H
#define FOLIOLAB_AGENT_ROOTFS_H

#define ROOTFS_MOUNT "/newroot"

/* Mounts `device` (ext4; the host attached it with QEMU's snapshot=on, so writes are thrown
 * away) on ROOTFS_MOUNT, brings /dev, /proc, /sys (with debugfs and cgroup2 under it), /workloads
 * and /job into it, gives it a fresh /tmp, /run and /dev/shm, brings up the loopback interface
 * and chroots the agent into it: from then on workloads and setup commands run Debian's programs
 * with the agent's knobs, counters and results port unchanged. Any failure ends the run (stage
 * `rootfs`). */
void rootfs_enter(const char *device);

#endif
