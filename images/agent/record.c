/* Record channel (docs/guest-protocol.md "Record channel"): payload lines, CRC-32, the results
 * port, framing, and the `error`/`done` records that end a run. */
#define _GNU_SOURCE
#include "record.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int g_port_fd = -1;
static unsigned long g_seq;
static int g_failing;

/* ---------------- payload lines ---------------- */

void kv_add(struct sb *b, const char *key, const char *value) {
  sb_puts(b, key);
  sb_append(b, "\t", 1);
  size_t start = b->len;
  sb_puts(b, value);
  for (size_t i = start; i < b->len; i++)
    if (b->p[i] == '\t' || b->p[i] == '\n') b->p[i] = ' ';
  sb_append(b, "\n", 1);
}

void kv_addf(struct sb *b, const char *key, const char *fmt, ...) {
  struct sb v = {0};
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&v, fmt, ap);
  va_end(ap);
  kv_add(b, key, v.p ? v.p : "");
  sb_free(&v);
}

/* ---------------- CRC-32 (IEEE 802.3, reflected poly 0xEDB88320, as zlib) ---------------- */

static uint32_t crc_table[256];

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

/* Same contract as zlib: crc32_ieee(0, buf, n) is the CRC of buf; chaining works. */
uint32_t crc32_ieee(uint32_t crc, const void *data, size_t n) {
  const unsigned char *p = data;
  if (!crc_table[1]) crc_init();
  crc = ~crc;
  while (n--) crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/* ---------------- results port ---------------- */

static int write_all(int fd, const char *p, size_t n);

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) && errno == EINTR)
    ;
}

/* Returns the /sys/class/virtio-ports entry whose name is RESULTS_PORT_NAME, or NULL. */
static char *find_port_dir(void) {
  DIR *d = opendir("/sys/class/virtio-ports");
  if (!d) return NULL;
  char *found = NULL;
  struct dirent *de;
  struct sb path = {0}, name = {0};
  while (!found && (de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    path.len = 0;
    sb_printf(&path, "/sys/class/virtio-ports/%s/name", de->d_name);
    if (read_file(path.p, &name) == 0) {
      strip_newlines(&name);
      if (name.p && strcmp(name.p, RESULTS_PORT_NAME) == 0) found = xstrdup(de->d_name);
    }
  }
  closedir(d);
  sb_free(&path);
  sb_free(&name);
  return found;
}

/* ---------------- the record channel of a lab machine (TCP) ---------------- */

/* foliolab.report=tcp:<IPv4>:<port> from /proc/cmdline into addr; 0 when present. */
static int lab_report_target(struct sockaddr_in *addr) {
  struct sb cmdline = {0};
  int rc = -1;
  if (read_file("/proc/cmdline", &cmdline) == 0 && cmdline.p) {
    const char *key = "foliolab.report=tcp:";
    char *at = strstr(cmdline.p, key);
    if (at && (at == cmdline.p || at[-1] == ' ')) {
      char ip[64];
      unsigned port = 0;
      if (sscanf(at + strlen(key), "%63[0-9.]:%u", ip, &port) == 2 && port > 0 && port < 65536) {
        memset(addr, 0, sizeof *addr);
        addr->sin_family = AF_INET;
        addr->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, ip, &addr->sin_addr) == 1) rc = 0;
      }
    }
  }
  sb_free(&cmdline);
  return rc;
}

/* After the last record: the host's end closes once it has it all (a reboot must not cut the
 * stream's tail), or after 10 s. */
static void lab_close(void) {
  if (g_port_fd < 0) return;
  shutdown(g_port_fd, SHUT_WR);
  struct timeval tv = {10, 0};
  setsockopt(g_port_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  while (read(g_port_fd, &c, 1) > 0)
    ;
  close(g_port_fd);
  g_port_fd = -1;
}

/* Connects to foliolab (the network is up: ip= on the command line, the kernel's own
 * autoconfiguration), greets with the job's nonce (/job/nonce), and keeps trying until
 * timeout_ms: the link may still be negotiating. */
static int lab_open(const struct sockaddr_in *addr, int timeout_ms) {
  struct sb nonce = {0};
  if (read_file("/job/nonce", &nonce) != 0 || !nonce.p) {
    log_msg("foliolab.report=tcp: but the job has no nonce (/job/nonce)");
    return -1;
  }
  strip_newlines(&nonce);
  set_lab_machine(lab_close);
  for (int waited = 0; waited <= timeout_ms; waited += 500) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)addr, sizeof *addr) == 0) {
      struct sb hello = {0};
      sb_printf(&hello, "FOLIOLAB-RECORDS %s\n", nonce.p);
      int ok = write_all(fd, hello.p, hello.len) == 0;
      sb_free(&hello);
      if (ok) {
        g_port_fd = fd;
        log_msg("results to %s:%u over TCP (after %d ms)", inet_ntoa(addr->sin_addr),
                ntohs(addr->sin_port), waited);
        sb_free(&nonce);
        return 0;
      }
    }
    if (fd >= 0) close(fd);
    sleep_ms(500);
  }
  log_msg("cannot connect to %s:%u for %d ms", inet_ntoa(addr->sin_addr), ntohs(addr->sin_port),
          timeout_ms);
  sb_free(&nonce);
  return -1;
}

/* Kernel quirk: virtio_console adds ports (and later names them) from a workqueue driven by
 * control messages, and devtmpfs creates /dev/vportNpM asynchronously, so neither needs to
 * exist yet when /init starts. Poll for both. */
int port_open(int timeout_ms) {
  if ((g_port_fd = host_results_fd()) >= 0) {
    fcntl(g_port_fd, F_SETFD, FD_CLOEXEC); /* not for the workloads */
    log_msg("results to inherited descriptor %d (host mode)", g_port_fd);
    return 0;
  }
  struct sockaddr_in lab;
  if (lab_report_target(&lab) == 0) return lab_open(&lab, timeout_ms);
  char *dir = NULL;
  for (int waited = 0; waited <= timeout_ms; waited += 20) {
    if (!dir) dir = find_port_dir();
    if (dir) {
      char dev[300];
      snprintf(dev, sizeof dev, "/dev/%s", dir);
      g_port_fd = open(dev, O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (g_port_fd >= 0) {
        log_msg("results port %s (after %d ms)", dev, waited);
        free(dir);
        return 0;
      }
    }
    sleep_ms(20);
  }
  log_msg("no virtio port named %s%s%s after %d ms", RESULTS_PORT_NAME,
          dir ? " could be opened: /dev/" : "", dir ? dir : "", timeout_ms);
  free(dir);
  return -1;
}

/* ---------------- records ---------------- */

static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Frames one record: "@FL1 <type> <seq> <len> <crc32>\n<payload>\n". Kernel quirk: a port
 * write() takes at most 32 KiB and returns once the buffer is queued and the host kicked (it
 * does not wait for the host to consume it), hence write_all() and the pause in power_off().
 * Without a port the record is only logged. A failed write powers off: nothing more can be
 * reported. */
void record_emit(const char *type, const void *payload, size_t len) {
  if (len > MAX_PAYLOAD)
    len = MAX_PAYLOAD; /* callers enforce the limit; this only guards the framing */
  char hdr[128];
  int h = snprintf(hdr, sizeof hdr, "@FL1 %s %lu %zu %08x\n", type, g_seq, len,
                   (unsigned)crc32_ieee(0, payload, len));
  if (g_port_fd < 0) {
    log_msg("no port, dropped record %s seq %lu", type, g_seq);
    return;
  }
  char *buf = xmalloc((size_t)h + len + 1);
  memcpy(buf, hdr, (size_t)h);
  if (len) memcpy(buf + h, payload, len);
  buf[(size_t)h + len] = '\n';
  int rc = write_all(g_port_fd, buf, (size_t)h + len + 1);
  free(buf);
  if (rc) {
    int fd = g_port_fd;
    g_port_fd = -1;
    close(fd);
    log_msg("write to results port failed: %s", strerror(errno));
    power_off();
  }
  g_seq++;
}

void record_emit_sb(const char *type, const struct sb *b) {
  record_emit(type, b->p ? b->p : "", b->len);
}

/* ---------------- the end of a run ---------------- */

static void emit_verror(const char *stage, const char *fmt, va_list ap) {
  struct sb msg = {0}, p = {0};
  sb_vprintf(&msg, fmt, ap);
  const char *m = msg.p ? msg.p : "";
  log_msg("error [%s]: %s", stage, m);
  kv_add(&p, "stage", stage);
  kv_add(&p, "message", m);
  record_emit_sb("error", &p);
  sb_free(&msg);
  sb_free(&p);
}

void emit_done(const char *status) {
  struct sb p = {0};
  kv_add(&p, "status", status);
  record_emit_sb("done", &p);
  sb_free(&p);
  log_msg("done status=%s", status);
}

_Noreturn void fail_run(const char *stage, const char *fmt, ...) {
  if (!g_failing) { /* a failure while failing: just power off */
    g_failing = 1;
    va_list ap;
    va_start(ap, fmt);
    emit_verror(stage, fmt, ap);
    va_end(ap);
    emit_done("failed");
  }
  power_off();
}
