/* Console log, power-off, host mode, string buffers and whole-file reads (see base.h). */
#define _GNU_SOURCE
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---------------- logging and power-off ---------------- */

void log_msg(const char *fmt, ...) {
  char line[1024];
  int n = snprintf(line, sizeof line, "foliolab-agent: ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  size_t len = strlen(line);
  line[len] = '\n';
  if (write(2, line, len + 1) < 0) {
    /* no console: nothing else to tell */
  }
}

int host_results_fd(void) {
  const char *v = getenv("FOLIOLAB_RESULTS_FD");
  if (!v || !*v) return -1;
  char *end;
  long fd = strtol(v, &end, 10);
  return (*end || fd < 3 || fd > 1000) ? -1 : (int)fd;
}

static int g_lab_machine;
static void (*g_lab_hook)(void);

void set_lab_machine(void (*hook)(void)) {
  g_lab_machine = 1;
  g_lab_hook = hook;
}

_Noreturn void power_off(void) {
  if (host_results_fd() >= 0) { /* on a host: end this process, never the machine */
    log_msg("exiting (host mode)");
    _exit(0);
  }
  if (g_lab_machine) { /* back to the machine's own kernel: foliolab waits for its ssh */
    void (*hook)(void) = g_lab_hook;
    g_lab_hook = NULL; /* a failure inside the hook ends here too */
    if (hook) hook();
    log_msg("rebooting into the machine's own kernel");
    sync();
    reboot(RB_AUTOBOOT);
    log_msg("reboot(RB_AUTOBOOT) failed: %s", strerror(errno));
    for (;;) pause();
  }
  log_msg("powering off");
  sync();
  /* Under TCG the port's kick is handled synchronously, so records are already in the host
   * file; with KVM ioeventfd the host drains the queue asynchronously: give it a moment. */
  struct timespec ts = {0, 100 * 1000 * 1000};
  nanosleep(&ts, NULL);
#if defined(__x86_64__)
  /* The small x86_64 guest kernel has no ACPI (kernel-config/x86_64.config): there, power-off
   * would halt the CPU and leave QEMU running until the deadline. A reset ends QEMU
   * (-no-reboot) and a libvirt domain (<on_reboot>destroy) alike. */
  if (access("/sys/firmware/acpi", F_OK) != 0) {
    reboot(RB_AUTOBOOT);
    log_msg("reboot(RB_AUTOBOOT) failed: %s", strerror(errno));
    for (;;) pause();
  }
#endif
  reboot(RB_POWER_OFF);
  log_msg("reboot(RB_POWER_OFF) failed: %s", strerror(errno));
  for (;;) pause();
}

const char *kernel_release(void) {
  static char release[65];
  if (!release[0]) {
    struct utsname u;
    snprintf(release, sizeof release, "%s", uname(&u) == 0 ? u.release : "unknown");
  }
  return release;
}

/* ---------------- string buffer ---------------- */

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    log_msg("out of memory (%zu bytes)", n);
    power_off();
  }
  return p;
}

char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xmalloc(n), s, n);
}

static void sb_reserve(struct sb *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    log_msg("out of memory (%zu bytes)", cap);
    power_off();
  }
  b->p = p;
  b->cap = cap;
}

void sb_free(struct sb *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

void sb_append(struct sb *b, const void *data, size_t n) {
  sb_reserve(b, n);
  memcpy(b->p + b->len, data, n);
  b->len += n;
  b->p[b->len] = '\0';
}

void sb_puts(struct sb *b, const char *s) { sb_append(b, s, strlen(s)); }

void sb_vprintf(struct sb *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  sb_reserve(b, (size_t)n);
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void sb_printf(struct sb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

/* ---------------- files ---------------- */

int read_file(const char *path, struct sb *out) {
  out->len = 0;
  sb_append(out, "", 0);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return -e;
    }
    if (n == 0 || out->len + (size_t)n > MAX_PAYLOAD) break;
    sb_append(out, buf, (size_t)n);
  }
  close(fd);
  return 0;
}

void strip_newlines(struct sb *b) {
  while (b->len && b->p[b->len - 1] == '\n') b->p[--b->len] = '\0';
}
