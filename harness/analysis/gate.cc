#include "analysis/gate.h"

#include <fmt/format.h>

#include <cmath>

#include "report/number_format.h"

namespace foliolab {
namespace {

bool group_matches(const RunSelector& sel, const ComparisonGroup& g) {
  if (!sel.kernel.empty() && sel.kernel != g.kernel) return false;
  if (sel.arch && arch_info(*sel.arch).name != g.arch) return false;
  if (!sel.knobs.empty() && sel.knobs != g.knobs) return false;
  if (!sel.workload.empty() && sel.workload != g.workload) return false;
  return true;
}

// The change resolved by the comparison: its interval excludes zero, or (zero baseline) the
// verdict says it changed.
bool resolved(const Delta& d) {
  if (std::isfinite(d.ci_low)) return d.ci_low > 0 || d.ci_high < 0;
  return d.verdict == Verdict::kImproved || d.verdict == Verdict::kRegressed ||
         d.verdict == Verdict::kChanged;
}

GateCase judge(const GateRule& rule, const ComparisonGroup& g, const MetricRow& row) {
  GateCase c{rule.name, g.title, row.metric, GateOutcome::kPass, ""};
  if (row.emulated && !rule.timings_under_tcg) {
    c.outcome = GateOutcome::kSkip;
    c.message = "timing measured under TCG (emulated): gates use counts unless the rule sets "
                "timings: true";
    return c;
  }
  if (row.deltas.size() < 2 || !row.deltas[1]) {
    c.outcome = GateOutcome::kFail;
    c.message = "no comparison";
    return c;
  }
  const Delta& d = *row.deltas[1];
  const SampleStats& a = row.stats[0];
  const SampleStats& b = row.stats[1];
  const std::string values = fmt::format("{} → {} ({})", format_compact(a.median),
                                         format_compact(b.median), format_change(d.rel_change));
  if (a.n < kMinSamples || b.n < kMinSamples) {
    c.outcome = GateOutcome::kFail;
    c.message = fmt::format("n={}/{}: too few samples to judge", a.n, b.n);
    return c;
  }
  const bool moved = resolved(d);
  if (rule.equal) {
    if (moved || (a.sd == 0 && b.sd == 0 && a.mean != b.mean)) {
      c.outcome = GateOutcome::kFail;
      c.message = "changed: " + values + ", must be equal";
    } else {
      c.message = "unchanged: " + values;
    }
    return c;
  }
  const Better better = rule.better.value_or(row.info.better);
  const double limit = *rule.max_regression;
  // The change in the worse direction (a direction-less metric may move either way).
  double worse = 0;
  if (std::isfinite(d.rel_change)) {
    worse = better == Better::kHigher  ? -d.rel_change
            : better == Better::kLower ? d.rel_change
                                       : std::fabs(d.rel_change);
  } else if (moved) {
    worse = INFINITY;  // from or to zero
    if (better == Better::kHigher && b.mean > a.mean) worse = 0;
    if (better == Better::kLower && b.mean < a.mean) worse = 0;
  }
  if (moved && worse > limit) {
    c.outcome = GateOutcome::kFail;
    c.message = fmt::format("{}: {}, allowed {}", better == Better::kNone ? "changed" : "regressed",
                            values, format_change(limit));
  } else if (d.verdict == Verdict::kInconclusive) {
    c.message = "inconclusive (passes): " + values + (d.note.empty() ? "" : "; " + d.note);
  } else {
    c.message = std::string(moved ? "within limit: " : "no resolved change: ") + values;
  }
  return c;
}

}  // namespace

std::string_view gate_outcome_name(GateOutcome o) {
  switch (o) {
    case GateOutcome::kPass:
      return "pass";
    case GateOutcome::kFail:
      return "FAIL";
    case GateOutcome::kSkip:
      break;
  }
  return "skip";
}

GateReport evaluate_gate(const std::vector<GateRule>& rules, ComparisonModel comparison) {
  GateReport out;
  out.comparison = std::move(comparison);
  for (const GateRule& rule : rules) {
    size_t matched = 0;
    for (const ComparisonGroup& g : out.comparison.groups) {
      if (!group_matches(rule.runs, g)) continue;
      for (const MetricRow& row : g.rows) {
        if (row.metric != rule.metric) continue;
        ++matched;
        out.cases.push_back(judge(rule, g, row));
      }
    }
    if (matched == 0) {
      out.cases.push_back({rule.name, "-", rule.metric, GateOutcome::kFail,
                           "no compared run has this metric (" + selector_text(rule.runs) + ")"});
    }
  }
  for (const GateCase& c : out.cases) {
    ++(c.outcome == GateOutcome::kPass   ? out.passed
       : c.outcome == GateOutcome::kFail ? out.failed
                                         : out.skipped);
  }
  return out;
}

}  // namespace foliolab
