/* The evidence lines of the job file (job_evidence.h): names checked for their syntax here,
 * against the kernel's own lists by evidence.c before rep 0. */
#define _GNU_SOURCE
#include "job_evidence.h"

#include <stdlib.h>
#include <string.h>

/* [A-Za-z0-9_] (dot: also '.', a function such as foo.isra.0), non-empty. */
static int is_name(const char *s, int dot) {
  if (!*s || strlen(s) > 128) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || (dot && *s == '.')))
      return 0;
  return 1;
}

/* `event <system>:<event|*>` or `event <system>:<event> <field>`. */
static int parse_event(struct evidence *e, char *rest, const char **why) {
  if (e->nevents >= MAX_EVENTS) return *why = "too many", -1;
  char *by = strchr(rest, ' ');
  if (by) *by++ = '\0';
  char *colon = strchr(rest, ':');
  if (!colon) return *why = "expected '<system>:<event>'", -1;
  *colon = '\0';
  const int ok = is_name(rest, 0) && (!strcmp(colon + 1, "*") || is_name(colon + 1, 0));
  *colon = ':';
  if (!ok) return *why = "expected '<system>:<event>' of [A-Za-z0-9_] or '<system>:*'", -1;
  if (by && (!is_name(by, 0) || !strcmp(colon + 1, "*")))
    return *why = "the split field is not a word of [A-Za-z0-9_] (or the event is '*')", -1;
  e->event[e->nevents] = rest;
  e->by[e->nevents++] = by;
  return 0;
}

int job_evidence_line(struct evidence *e, const char *kw, char *rest, const char **why) {
  if (!strcmp(kw, "event")) return parse_event(e, rest, why);
  if (!strcmp(kw, "kprobe")) {
    if (e->nkprobes >= MAX_KPROBES) return *why = "too many", -1;
    if (!is_name(rest, 1) || *rest == '.') return *why = "not a function name", -1;
    e->kprobe[e->nkprobes++] = rest;
    return 0;
  }
  if (!strcmp(kw, "function_profile")) {
    char *end;
    if (e->profile_top) return *why = "duplicate", -1;
    long top = strtol(rest, &end, 10);
    if (*end || end == rest || top < 1 || top > MAX_PROFILE_TOP)
      return *why = "not a number of functions in 1..200", -1;
    e->profile_top = top;
    return 0;
  }
  return 1;
}

int evidence_wanted(const struct evidence *e) {
  return e->nevents || e->nkprobes || e->profile_top;
}
