/* Job file parser (docs/guest-protocol.md "Job file"). Strict: anything not in the contract
 * is an error, reported with its line number. */
#define _GNU_SOURCE
#include "job.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

#define MAX_STEPS 1024
#define MAX_ARGS 256
#define MAX_REPEAT 10000
#define MAX_SETUP 64 /* setup commands; each has at most MAX_ARGS tokens */
#define STR2(x) #x
#define STR(x) STR2(x)

struct parse {
  struct job *job;
  int lineno;
  char *err;
  size_t errlen;
  int seen_run_id, seen_repeat, seen_prctl, seen_exit_ok, seen_census, seen_max, seen_ci,
      seen_warmup;
  char **raw; /* `argv` tokens, appended after the `arg` ones at the end */
  size_t nraw;
};

static int perr(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parse *ps, const char *fmt, ...) {
  int n = snprintf(ps->err, ps->errlen, "job line %d: ", ps->lineno);
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < ps->errlen) vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

/* A path below the THP or sysctl tree (sysfs.h): [A-Za-z0-9_.-] components separated by '/', no
 * empty,
 * "." or ".." component. Keeps the agent from writing outside those trees. */
static int valid_relpath(const char *p) {
  if (!*p) return 0;
  for (const char *c = p; *c; c++)
    if (!(strchr("_.-/", *c) || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
          (*c >= '0' && *c <= '9')))
      return 0;
  const char *s = p;
  for (;;) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return 0;
    if (!e) return 1;
    s = e + 1;
  }
}

/* Splits "a b c" into "a" and "b c" in place; rest is "" when there is no space. */
static char *split_word(char *s) {
  char *sp = strchr(s, ' ');
  if (!sp) return s + strlen(s);
  *sp = '\0';
  return sp + 1;
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi || s[0] == '+' || s[0] == ' ') return -1;
  *out = v;
  return 0;
}

static int add_step(struct parse *ps, enum step_kind kind, char *rest) {
  struct job *j = ps->job;
  char *value = split_word(rest);
  const char *kw = kind == STEP_KNOB ? "knob" : "sysctl";
  if (!valid_relpath(rest)) return perr(ps, "%s: bad path '%s'", kw, rest);
  if (!*value) return perr(ps, "%s %s: missing value", kw, rest);
  if (j->nsteps == MAX_STEPS) return perr(ps, "more than %d knob/sysctl lines", MAX_STEPS);
  j->steps[j->nsteps++] = (struct step){kind, rest, value};
  return 0;
}

static int add_arg(struct parse *ps, char *rest) {
  struct job *j = ps->job;
  char *value = split_word(rest);
  if (!*rest || strchr(rest, '=')) return perr(ps, "arg: bad key '%s'", rest);
  if (j->nargs + ps->nraw == MAX_ARGS) return perr(ps, "more than %d arg/argv lines", MAX_ARGS);
  size_t n = strlen(rest) + strlen(value) + 2;
  char *kv = xmalloc(n);
  snprintf(kv, n, "%s=%s", rest, value);
  j->argv[1 + j->nargs++] = kv;
  return 0;
}

/* `argv <token>`: the rest of the line verbatim (spaces kept, may be empty). */
static int add_raw(struct parse *ps, char *rest) {
  if (ps->job->nargs + ps->nraw == MAX_ARGS)
    return perr(ps, "more than %d arg/argv lines", MAX_ARGS);
  ps->raw[ps->nraw++] = rest;
  return 0;
}

/* `exec <path>`: an absolute path, each component as in valid_relpath(). */
static int parse_exec(struct parse *ps, char *rest) {
  if (ps->job->exec) return perr(ps, "duplicate 'exec'");
  if (rest[0] != '/' || !valid_relpath(rest + 1))
    return perr(ps, "exec: bad path '%s' (absolute, no empty, . or .. component)", rest);
  ps->job->exec = rest;
  return 0;
}

/* `rootfs <device>`: a block device under /dev, e.g. /dev/vda. */
static int parse_rootfs(struct parse *ps, char *rest) {
  if (ps->job->rootfs) return perr(ps, "duplicate 'rootfs'");
  if (strncmp(rest, "/dev/", 5) || strchr(rest + 5, '/') || !valid_relpath(rest + 5))
    return perr(ps, "rootfs: bad device '%s' (expected /dev/<name>)", rest);
  ps->job->rootfs = rest;
  return 0;
}

/* `setup <n> <token>`: token (verbatim, spaces kept, may be empty) ends setup command n, which
 * is the last one started (n = nsetup - 1) or the next (n = nsetup). */
static int add_setup(struct parse *ps, char *rest) {
  struct job *j = ps->job;
  if (!strchr(rest, ' ')) return perr(ps, "setup: expected '<n> <token>'");
  char *token = split_word(rest);
  long n;
  if (parse_long(rest, 0, MAX_SETUP - 1, &n) || (size_t)n + 1 < j->nsetup || (size_t)n > j->nsetup)
    return perr(ps, "setup: command number '%s' is not %zu or %zu", rest,
                j->nsetup ? j->nsetup - 1 : 0, j->nsetup);
  if ((size_t)n == j->nsetup) {
    if (!j->setup) j->setup = xmalloc(MAX_SETUP * sizeof *j->setup);
    j->setup[j->nsetup] = xmalloc((MAX_ARGS + 1) * sizeof **j->setup);
    j->setup[j->nsetup++][0] = NULL;
  }
  char **argv = j->setup[n];
  size_t len = 0;
  while (argv[len]) len++;
  if (len == MAX_ARGS) return perr(ps, "setup %ld: more than %d tokens", n, MAX_ARGS);
  argv[len] = token;
  argv[len + 1] = NULL;
  return 0;
}

static int set_once(struct parse *ps, int *seen, const char *kw) {
  if (*seen) return perr(ps, "duplicate '%s'", kw);
  *seen = 1;
  return 0;
}

static int parse_workload(struct parse *ps, char *rest) {
  struct job *j = ps->job;
  if (j->workload) return perr(ps, "duplicate 'workload'");
  if (!*rest || strchr(rest, '/') || !valid_relpath(rest))
    return perr(ps, "workload: bad name '%s'", rest);
  j->workload = rest;
  return 0;
}

/* repeat_max, repeat_ci, repeat_metric and warmup (adaptive repetitions); 1 when `line` is
 * none of them. */
static int parse_repeat_line(struct parse *ps, const char *line, char *rest) {
  struct job *j = ps->job;
  if (!strcmp(line, "repeat_max")) {
    if (set_once(ps, &ps->seen_max, "repeat_max")) return -1;
    if (parse_long(rest, 2, MAX_REPEAT, &j->repeat_max))
      return perr(ps, "repeat_max: '%s' is not an integer in 2..%d", rest, MAX_REPEAT);
    return 0;
  }
  if (!strcmp(line, "repeat_ci")) {
    char *end;
    if (set_once(ps, &ps->seen_ci, "repeat_ci")) return -1;
    errno = 0;
    j->repeat_ci = strtod(rest, &end);
    if (!*rest || *end || errno || !(j->repeat_ci > 0 && j->repeat_ci < 1) || rest[0] == ' ')
      return perr(ps, "repeat_ci: '%s' is not a fraction in (0, 1)", rest);
    return 0;
  }
  if (!strcmp(line, "repeat_metric")) {
    if (!job_is_word(rest)) return perr(ps, "repeat_metric: bad name '%s'", rest);
    if (j->nrepeat_metrics == RR_MAX_METRICS)
      return perr(ps, "more than %d repeat_metric lines", RR_MAX_METRICS);
    j->repeat_metrics[j->nrepeat_metrics++] = rest;
    return 0;
  }
  if (!strcmp(line, "warmup")) {
    if (set_once(ps, &ps->seen_warmup, "warmup")) return -1;
    if (parse_long(rest, 0, MAX_REPEAT, &j->warmup))
      return perr(ps, "warmup: '%s' is not an integer in 0..%d", rest, MAX_REPEAT);
    return 0;
  }
  return 1;
}

/* The adaptive lines go together: repeat_ci needs repeat_max >= repeat and a repeat_metric;
 * warm-up and measured reps stay within MAX_REPEAT. */
static int check_repeat(struct job *j, char *err, size_t errlen) {
  const char *why = NULL;
  if (j->repeat_ci > 0 && !j->repeat_max) why = "repeat_ci without repeat_max";
  if (j->repeat_ci > 0 && !j->nrepeat_metrics) why = "repeat_ci without a repeat_metric";
  if (j->repeat_ci == 0 && (j->repeat_max || j->nrepeat_metrics))
    why = "repeat_max or repeat_metric without repeat_ci";
  if (j->repeat_max && j->repeat_max < j->repeat) why = "repeat_max is below repeat";
  if (j->warmup + (j->repeat_max ? j->repeat_max : j->repeat) > MAX_REPEAT)
    why = "warm-up and measured reps exceed " STR(MAX_REPEAT);
  if (why) snprintf(err, errlen, "job: %s", why);
  return why ? -1 : 0;
}

static int parse_line(struct parse *ps, char *line) {
  struct job *j = ps->job;
  char *rest = split_word(line);
  long v;
  if (!strcmp(line, "run_id")) {
    if (set_once(ps, &ps->seen_run_id, "run_id")) return -1;
    j->run_id = rest;
    return 0;
  }
  if (!strcmp(line, "repeat")) {
    if (set_once(ps, &ps->seen_repeat, "repeat")) return -1;
    if (parse_long(rest, 1, MAX_REPEAT, &j->repeat))
      return perr(ps, "repeat: '%s' is not an integer in 1..%d", rest, MAX_REPEAT);
    return 0;
  }
  int rc = parse_repeat_line(ps, line, rest);
  if (rc <= 0) return rc;
  if (!strcmp(line, "prctl_thp_disable")) {
    if (set_once(ps, &ps->seen_prctl, "prctl_thp_disable")) return -1;
    if (parse_long(rest, 0, 1, &v)) return perr(ps, "prctl_thp_disable: '%s' is not 0 or 1", rest);
    j->thp_disable = (int)v;
    return 0;
  }
  if (!strcmp(line, "census")) {
    if (set_once(ps, &ps->seen_census, "census")) return -1;
    if (parse_long(rest, 0, 1, &v)) return perr(ps, "census: '%s' is not 0 or 1", rest);
    j->census = (int)v;
    return 0;
  }
  if (!strcmp(line, "nonzero_exit_ok")) {
    if (set_once(ps, &ps->seen_exit_ok, "nonzero_exit_ok")) return -1;
    if (parse_long(rest, 0, 1, &v)) return perr(ps, "nonzero_exit_ok: '%s' is not 0 or 1", rest);
    j->nonzero_exit_ok = (int)v;
    return 0;
  }
  if (!strcmp(line, "knob")) return add_step(ps, STEP_KNOB, rest);
  if (!strcmp(line, "sysctl")) return add_step(ps, STEP_SYSCTL, rest);
  if (!strcmp(line, "workload")) return parse_workload(ps, rest);
  if (!strcmp(line, "arg")) return add_arg(ps, rest);
  if (!strcmp(line, "argv")) return add_raw(ps, rest);
  if (!strcmp(line, "exec")) return parse_exec(ps, rest);
  if (!strcmp(line, "setup")) return add_setup(ps, rest);
  if (!strcmp(line, "rootfs")) return parse_rootfs(ps, rest);
  const char *why = NULL;
  rc = job_state_line(&j->state, line, rest, &why);
  if (rc == 1) rc = job_evidence_line(&j->evidence, line, rest, &why);
  if (rc < 0) return perr(ps, "%s: %s", line, why);
  if (rc == 0) return 0;
  return perr(ps, "unknown keyword '%s'", line);
}

static int check_chars(struct parse *ps, const char *text, size_t len) {
  ps->lineno = 1;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n')
      ps->lineno++;
    else if (text[i] == '\0' || text[i] == '\t' || text[i] == '\r')
      return perr(ps, "forbidden byte 0x%02x", (unsigned char)text[i]);
  }
  return 0;
}

/* Contract: first line is exactly JOB_MAGIC; empty lines are ignored; the last line may lack
 * its '\n'. Strings in *job point into a private copy of text that lives forever (PID 1). */
int job_parse(const char *text, size_t len, struct job *job, char *err, size_t errlen) {
  struct parse ps = {.job = job, .err = err, .errlen = errlen};
  *job = (struct job){.run_id = "", .repeat = 1};
  job->steps = xmalloc(MAX_STEPS * sizeof *job->steps);
  job->argv = xmalloc((MAX_ARGS + 2) * sizeof *job->argv);
  ps.raw = xmalloc(MAX_ARGS * sizeof *ps.raw);
  if (check_chars(&ps, text, len)) return -1;
  char *copy = xmalloc(len + 1);
  memcpy(copy, text, len);
  copy[len] = '\0';
  char *save = NULL;
  ps.lineno = 0;
  for (char *line = copy; line; line = save) {
    save = strchr(line, '\n');
    if (save) *save++ = '\0';
    ps.lineno++;
    if (ps.lineno == 1) {
      if (strcmp(line, JOB_MAGIC)) return perr(&ps, "expected '%s', got '%.60s'", JOB_MAGIC, line);
      continue;
    }
    if (*line && parse_line(&ps, line)) return -1;
  }
  if (check_repeat(job, err, errlen)) return -1;
  const char *why = NULL;
  if (job_state_check(&job->state, &why)) return snprintf(err, errlen, "job: %s", why), -1;
  if ((job->nargs || ps.nraw || job->exec) && !job->workload)
    return snprintf(err, errlen, "job has 'arg', 'argv' or 'exec' lines but no 'workload'"), -1;
  if (job->workload) {
    if (job->exec) {
      job->argv[0] = job->exec;
    } else {
      size_t n = strlen(WORKLOAD_DIR) + strlen(job->workload) + 2;
      job->argv[0] = xmalloc(n);
      snprintf(job->argv[0], n, "%s/%s", WORKLOAD_DIR, job->workload);
    }
  }
  for (size_t i = 0; i < ps.nraw; i++) job->argv[1 + job->nargs++] = ps.raw[i];
  free(ps.raw);
  job->argv[1 + job->nargs] = NULL;
  return 0;
}

int job_load(struct job *job, char *err, size_t errlen) {
  struct sb text = {0};
  int rc = read_file(JOB_PATH, &text);
  if (rc) {
    *job = (struct job){.run_id = ""};
    snprintf(err, errlen, "cannot read %s: %s", JOB_PATH, strerror(-rc));
    return -1;
  }
  if (text.len >= MAX_PAYLOAD) {
    *job = (struct job){.run_id = ""};
    snprintf(err, errlen, "%s is larger than %zu bytes", JOB_PATH, MAX_PAYLOAD);
    return -1;
  }
  rc = job_parse(text.p, text.len, job, err, errlen);
  sb_free(&text);
  return rc;
}
