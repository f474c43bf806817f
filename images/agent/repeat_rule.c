/* The stopping rule of adaptive repetitions and the JSON metric reader (repeat_rule.h). */
#include "repeat_rule.h"

#include <math.h> /* HUGE_VAL and fabs only: both are compiler built-ins, no libm */
#include <stdlib.h>
#include <string.h>

static const struct {
  long df;
  double q;
} t975[] = {
#define FL_T975(df, q) {df, q},
#include "t975.h"
#undef FL_T975
};

double rr_t975(long df) {
  double q = t975[0].q;
  for (size_t i = 0; i < sizeof t975 / sizeof t975[0]; i++) {
    if (t975[i].df == 0) return df > t975[i - 1].df ? t975[i].q : q;
    if (t975[i].df > df) break;
    q = t975[i].q;
  }
  return q;
}

/* Two-pass mean and sample variance (not the one-pass sum of squares: see STYLE.md). */
static void mean_var(const double *x, long n, double *mean, double *var) {
  double sum = 0, ss = 0;
  for (long i = 0; i < n; i++) sum += x[i];
  *mean = sum / (double)n;
  for (long i = 0; i < n; i++) ss += (x[i] - *mean) * (x[i] - *mean);
  *var = n > 1 ? ss / (double)(n - 1) : 0;
}

int rr_within(const double *x, long n, double ci) {
  if (n < 2) return 0;
  double mean, var, t = rr_t975(n - 1);
  mean_var(x, n, &mean, &var);
  return t * t * var / (double)n <= ci * ci * mean * mean;
}

/* Newton's iteration from above: monotone after the first step, so it stops when it stops
 * falling (exact to an ulp or two; only for the record). */
static double newton_sqrt(double v) {
  if (v <= 0) return 0;
  double g = v > 1 ? v : 1;
  for (int i = 0; i < 2100; i++) {
    double next = 0.5 * (g + v / g);
    if (next >= g) break;
    g = next;
  }
  return g;
}

double rr_rel_half_width(const double *x, long n) {
  if (n < 2) return -1;
  double mean, var;
  mean_var(x, n, &mean, &var);
  if (var == 0) return 0;
  if (mean == 0) return HUGE_VAL;
  return rr_t975(n - 1) * newton_sqrt(var / (double)n) / fabs(mean);
}

enum rr_stop rr_decide(long n, long min, long max, double ci, const struct rr_series *s,
                       size_t nseries) {
  if (n < min) return RR_CONTINUE;
  int all = 1;
  for (size_t i = 0; i < nseries && all; i++) all = s[i].n == n && rr_within(s[i].x, s[i].n, ci);
  if (all) return RR_REACHED;
  return n >= max ? RR_MAX : RR_CONTINUE;
}

const char *rr_stop_name(enum rr_stop stop) {
  return stop == RR_REACHED ? "reached" : stop == RR_MAX ? "max" : "continue";
}

/* ---------------- the JSON line ---------------- */

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p;
}

/* p at the opening quote: returns the position after the closing one, or NULL. */
static const char *skip_string(const char *p, const char *end) {
  for (p++; p < end; p++) {
    if (*p == '\\') {
      p++;
    } else if (*p == '"') {
      return p + 1;
    }
  }
  return NULL;
}

/* Skips one value (nested objects and arrays included); NULL when the line ends first. */
static const char *skip_value(const char *p, const char *end) {
  int depth = 0;
  for (; p < end; p++) {
    if (*p == '"') {
      p = skip_string(p, end);
      if (!p) return NULL;
      p--;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      if (depth == 0) return p;
      depth--;
    } else if (*p == ',' && depth == 0) {
      return p;
    }
  }
  return NULL;
}

/* The last line whose first non-blank character is '{': its start (at the '{') and end. */
static const char *last_object_line(const char *text, size_t len, const char **line_end) {
  const char *found = NULL, *end = text + len;
  for (const char *line = text; line < end;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *stop = nl ? nl : end;
    const char *p = line;
    while (p < stop && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    if (p < stop && *p == '{') found = p, *line_end = stop;
    line = nl ? nl + 1 : end;
  }
  return found;
}

int rr_json_number(const char *text, size_t len, const char *name, double *value) {
  const char *end = NULL, *p = last_object_line(text, len, &end);
  size_t nlen = strlen(name);
  int found = 0;
  if (!p) return 0;
  for (p = skip_ws(p + 1, end); p < end && *p == '"';) {
    const char *key = p + 1, *after = skip_string(p, end);
    if (!after) return found;
    int match = (size_t)(after - 1 - key) == nlen && memcmp(key, name, nlen) == 0;
    p = skip_ws(after, end);
    if (p >= end || *p != ':') return found;
    p = skip_ws(p + 1, end);
    if (match) {
      char *num_end = NULL;
      int numeric = p < end && (*p == '-' || (*p >= '0' && *p <= '9'));
      double v = numeric ? strtod(p, &num_end) : 0;
      found = numeric && num_end > p;
      if (found) *value = v;
    }
    p = skip_value(p, end);
    if (!p || *p != ',') return found;
    p = skip_ws(p + 1, end);
  }
  return found;
}
