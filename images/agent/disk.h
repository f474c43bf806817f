/* foliolab guest agent: the run's own virtio disks, found by the serial the host gave them
 * (protocol/job.h: foliolab-swap, foliolab-scratch). Uses base only. */
#ifndef FOLIOLAB_AGENT_DISK_H
#define FOLIOLAB_AGENT_DISK_H

#include <stddef.h>

/* The virtio-blk disk whose serial is `serial`, as /dev/vdX in dev, marked non-rotational (a
 * file on the host: the kernel's swap clusters, and mTHP swap-out with them, need that); 0, or -1
 * when there is none. */
int disk_by_serial(const char *serial, char *dev, size_t len);

#endif
