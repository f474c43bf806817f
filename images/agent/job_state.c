/* The machine-state lines of the job file (job_state.h). Strict like job.c: every value is
 * checked, so prepare.c writes only where it means to. */
#define _GNU_SOURCE
#include "job_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A word of [A-Za-z0-9_.-], nothing else: metric names as the workloads print them, and the
 * compressor, counter and cgroup file names of the machine-state lines. */
int job_is_word(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!(strchr("_.-", *s) || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9')))
      return 0;
  return 1;
}

static int parse_ull(const char *s, unsigned long long *out) {
  char *end;
  if (!*s || *s < '0' || *s > '9') return -1;
  errno = 0;
  *out = strtoull(s, &end, 10);
  return *end || errno ? -1 : 0;
}

/* The next space-separated field of *s (NULL when there is none). */
static char *field(char **s) {
  if (!*s || !**s) return NULL;
  char *f = *s, *sp = strchr(f, ' ');
  if (sp) *sp = '\0';
  *s = sp ? sp + 1 : NULL;
  return f;
}

static int parse_swap(struct machine_state *m, char *rest, const char **why) {
  char *type = field(&rest), *bytes = field(&rest), *arg = field(&rest);
  if (m->swap != SWAP_NONE) return *why = "duplicate", -1;
  if (!type || !bytes || !arg || rest) return *why = "expected '<zram|disk> <bytes> <arg>'", -1;
  if (!strcmp(type, "zram"))
    m->swap = SWAP_ZRAM;
  else if (!strcmp(type, "disk"))
    m->swap = SWAP_DISK;
  else
    return *why = "type is not zram or disk", -1;
  if (parse_ull(bytes, &m->swap_bytes) || m->swap_bytes < (1ULL << 20))
    return *why = "size is not a number of bytes of at least 1 MiB", -1;
  if (!job_is_word(arg)) return *why = "bad compressor or serial", -1;
  m->swap_arg = arg;
  return 0;
}

static int parse_cgroup(struct machine_state *m, char *rest, const char **why) {
  char *file = field(&rest), *value = field(&rest);
  if (!file || !value || rest) return *why = "expected '<memory.file> <bytes|max>'", -1;
  if (strncmp(file, "memory.", 7) || !job_is_word(file + 7) || strchr(file + 7, '.') == file + 7)
    return *why = "not a memory.<name> file", -1;
  unsigned long long v;
  if (strcmp(value, "max") && parse_ull(value, &v)) return *why = "value is not bytes or max", -1;
  if (m->ncgroup == MAX_CGROUP_LIMITS) return *why = "too many limits", -1;
  m->cgroup[m->ncgroup++] = (struct limit){file, value};
  return 0;
}

/* churn's own fields after the common ones: `<bytes> <file_bytes> <passes> <background>`. */
static int parse_churn(struct prep *p, char *rest, const char **why) {
  char *bytes = field(&rest), *file = field(&rest), *passes = field(&rest);
  char *background = field(&rest), *end;
  if (!background || rest)
    return *why = "fragment churn: expected '... <bytes> <file_bytes> <passes> <background>'", -1;
  if (parse_ull(bytes, &p->churn_bytes) || parse_ull(file, &p->file_bytes) || !p->file_bytes ||
      p->file_bytes % 4096 || p->churn_bytes < p->file_bytes)
    return *why = "fragment churn: sizes are not bytes (a file a multiple of 4096)", -1;
  p->passes = strtol(passes, &end, 10);
  if (*end || p->passes < 0 || p->passes > 100) return *why = "fragment churn: passes 0..100", -1;
  if (strcmp(background, "0") && strcmp(background, "1"))
    return *why = "fragment churn: background is not 0 or 1", -1;
  p->background = background[0] == '1';
  return 0;
}

/* `prepare fragment <method> <order> <target> <seed> <pin> <reserve>` (churn: and its own
 * fields, parse_churn) or `prepare reclaim <bytes>`. */
static int parse_prepare(struct machine_state *m, char *rest, const char **why) {
  if (m->nprep == MAX_PREPARE) return *why = "too many steps", -1;
  struct prep p = {0};
  char *kind = field(&rest);
  if (kind && !strcmp(kind, "reclaim")) {
    char *bytes = field(&rest);
    if (!bytes || rest || parse_ull(bytes, &p.bytes) || !p.bytes)
      return *why = "reclaim: expected a number of bytes", -1;
    p.reclaim = 1;
    m->prep[m->nprep++] = p;
    return 0;
  }
  if (!kind || strcmp(kind, "fragment")) return *why = "not fragment or reclaim", -1;
  char *method = field(&rest), *order = field(&rest), *target = field(&rest);
  char *seed = field(&rest), *pin = field(&rest), *reserve = field(&rest);
  const int churn = method && !strcmp(method, "churn");
  if (!reserve || (rest && !churn))
    return *why = "fragment: expected '<method> <order> <target> <seed> <pin> <reserve>'", -1;
  if (strcmp(method, "thpscale") && strcmp(method, "unusable") && !churn)
    return *why = "fragment: method is not thpscale, unusable or churn", -1;
  if (churn && parse_churn(&p, rest, why)) return -1;
  p.method = method;
  char *end;
  p.order = strtol(order, &end, 10);
  if (*end || p.order < 0 || p.order > 13) return *why = "fragment: order not in 0..13", -1;
  p.target = strtod(target, &end);
  if (*end || !(p.target >= 0 && p.target <= 1)) return *why = "fragment: target not in [0, 1]", -1;
  if (!strcmp(method, "unusable") && (p.order < 1 || p.target <= 0))
    return *why = "fragment unusable: needs an order >= 1 and a target > 0", -1;
  if (parse_ull(seed, &p.seed) || !p.seed)
    return *why = "fragment: seed is not a positive number", -1;
  if (strcmp(pin, "0") && strcmp(pin, "1")) return *why = "fragment: pin is not 0 or 1", -1;
  p.pin = pin[0] == '1';
  if (parse_ull(reserve, &p.reserve)) return *why = "fragment: reserve is not bytes", -1;
  m->prep[m->nprep++] = p;
  return 0;
}

static int parse_monitor(struct machine_state *m, const char *kw, char *rest, const char **why) {
  if (!strcmp(kw, "monitor")) {
    char *end;
    if (m->monitor_ms) return *why = "duplicate", -1;
    m->monitor_ms = strtol(rest, &end, 10);
    if (!*rest || *end || m->monitor_ms < 10 || m->monitor_ms > 60000)
      return *why = "period is not 10..60000 ms", -1;
    return 0;
  }
  if (!job_is_word(rest) || !strchr(rest, '.')) return *why = "bad counter name", -1;
  if (m->nmonitor == MAX_MONITOR) return *why = "too many counters", -1;
  m->monitor[m->nmonitor++] = rest;
  return 0;
}

int job_state_line(struct machine_state *m, const char *kw, char *rest, const char **why) {
  if (!strcmp(kw, "swap")) return parse_swap(m, rest, why);
  if (!strcmp(kw, "zswap")) {
    if (m->zswap) return *why = "duplicate", -1;
    if (!job_is_word(rest)) return *why = "bad compressor", -1;
    m->zswap = rest;
    return 0;
  }
  if (!strcmp(kw, "cgroup")) return parse_cgroup(m, rest, why);
  if (!strcmp(kw, "prepare")) return parse_prepare(m, rest, why);
  if (!strcmp(kw, "monitor") || !strcmp(kw, "monitor_counter"))
    return parse_monitor(m, kw, rest, why);
  return 1;
}

int job_state_check(const struct machine_state *m, const char **why) {
  if (m->zswap && m->swap == SWAP_NONE) return *why = "zswap without swap", -1;
  if (!m->monitor_ms != !m->nmonitor) return *why = "monitor and monitor_counter go together", -1;
  return 0;
}
