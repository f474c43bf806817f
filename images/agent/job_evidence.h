/* foliolab guest agent: the evidence lines of the job file (docs/guest-protocol.md "Job file":
 * `event`, `kprobe`, `function_profile`), what evidence.c counts during each rep. Libc only;
 * job.c hands it the lines it does not know itself. */
#ifndef FOLIOLAB_AGENT_JOB_EVIDENCE_H
#define FOLIOLAB_AGENT_JOB_EVIDENCE_H

#include <stddef.h>

#define MAX_EVENTS 32       /* `event` lines (model/evidence.h kMaxEvidenceEvents) */
#define MAX_KPROBES 32      /* `kprobe` lines */
#define MAX_PROFILE_TOP 200 /* `function_profile <top>` */

struct evidence {
  char *event[MAX_EVENTS]; /* "<system>:<event>" or "<system>:*" */
  char *by[MAX_EVENTS];    /* the hist key field, or NULL for one total */
  size_t nevents;
  char *kprobe[MAX_KPROBES]; /* kernel function names */
  size_t nkprobes;
  long profile_top; /* 0: no function profile */
};

/* 1 when `kw` is not an evidence keyword, 0 when parsed, -1 with *why set. */
int job_evidence_line(struct evidence *e, const char *kw, char *rest, const char **why);

/* Whether the job asks for any evidence. */
int evidence_wanted(const struct evidence *e);

#endif
