/* foliolab guest agent: the stopping rule of adaptive repetitions (docs/guest-protocol.md,
 * `repeat_ci`), and reading one metric from a workload's JSON line. Pure computation on libc
 * only (no libm: the agent links without it), below every other layer; the host's unit tests
 * compile this file as it is (harness/catalog/repeat_rule_test.cc) and check it against the
 * C++ port (harness/catalog/repeat_rule.h) on one table of cases.
 *
 * The rule: after each measured rep n >= min, stop when for every watched metric all n reps
 * gave a number and the 95 % Student-t half-width of the mean, t(0.975, n-1) * s / sqrt(n),
 * is at most ci * |mean| (`reached`); else stop at n = max (`max`).
 */
#ifndef FOLIOLAB_AGENT_REPEAT_RULE_H
#define FOLIOLAB_AGENT_REPEAT_RULE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RR_MAX_METRICS 16 /* repeat_metric lines a job may hold */

enum rr_stop { RR_CONTINUE = 0, RR_REACHED = 1, RR_MAX = 2 };

/* The numeric values one metric gave so far (reps where it was null or missing add none). */
struct rr_series {
  const double *x;
  long n;
};

/* The 0.975 quantile of Student's t with df >= 1 degrees of freedom (t975.h). */
double rr_t975(long df);

/* Whether the half-width of the mean of x[0..n-1] is at most ci * |mean| (n >= 2), decided
 * without a square root: t^2 * var / n <= ci^2 * mean^2. */
int rr_within(const double *x, long n, double ci);

/* The half-width relative to |mean| (0 when every value is equal; a huge value when the mean
 * is 0 and they are not); -1 when n < 2. For the record: the decision is rr_within's. */
double rr_rel_half_width(const double *x, long n);

/* After `n` measured reps: RR_CONTINUE below min; RR_REACHED when every series has all n values
 * and is within ci (also when there is no series); else RR_MAX at n >= max, else RR_CONTINUE. */
enum rr_stop rr_decide(long n, long min, long max, double ci, const struct rr_series *s,
                       size_t nseries);

/* "reached", "max" (and "continue"). */
const char *rr_stop_name(enum rr_stop stop);

/* The number under top-level key `name` of the last line of text[0..len) whose first non-blank
 * character is '{' (text[len] must be readable and end the number: the agent's buffers are
 * NUL-terminated). 1 with *value set; 0 when there is no such line or key, or its value is null,
 * a string, an object or anything but a JSON number. The last of repeated keys counts. */
int rr_json_number(const char *text, size_t len, const char *name, double *value);

#ifdef __cplusplus
}
#endif

#endif
