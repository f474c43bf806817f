#include "analysis/gate.h"

#include <cmath>

namespace foliolab {

bool gate_selects(const RunSelector& sel, const ComparisonGroup& g) {
  if (!sel.kernel.empty() && sel.kernel != g.kernel) return false;
  if (sel.arch && arch_info(*sel.arch).name != g.arch) return false;
  if (!sel.knobs.empty() && sel.knobs != g.knobs) return false;
  if (!sel.workload.empty() && sel.workload != g.workload) return false;
  return true;
}

namespace {

// The comparison's verdict (compare_samples, the one rule) says the metric moved.
bool resolved(const Delta& d) {
  return d.verdict == Verdict::kImproved || d.verdict == Verdict::kRegressed ||
         d.verdict == Verdict::kChanged;
}

// A TCG timing is judged when the rule says so: `timings: true`, or `timings: icount` and
// both sides measured instruction-time.
bool judges_timing(const GateRule& rule, const ComparisonGroup& g) {
  if (rule.timings == GateTimings::kAll) return true;
  return rule.timings == GateTimings::kIcount && g.variants.size() >= 2 && g.variants[0].icount &&
         g.variants[1].icount;
}

GateCase found(GateCase c, GateOutcome outcome, GateFinding finding) {
  c.outcome = outcome;
  c.finding = finding;
  return c;
}

// The change in the worse direction (a direction-less metric may move either way).
double worse_change(Better better, const Delta& d, const SampleStats& a, const SampleStats& b,
                    bool moved) {
  if (std::isfinite(d.rel_change)) {
    return better == Better::kHigher  ? -d.rel_change
           : better == Better::kLower ? d.rel_change
                                      : std::fabs(d.rel_change);
  }
  if (!moved) return 0;
  // From or to zero.
  if (better == Better::kHigher && b.mean > a.mean) return 0;
  if (better == Better::kLower && b.mean < a.mean) return 0;
  return INFINITY;
}

GateCase judge(const GateRule& rule, const ComparisonGroup& g, const MetricRow& row) {
  GateCase c{.rule = rule.name, .group = g.title, .metric = row.metric};
  if (row.emulated && !judges_timing(rule, g)) {
    return found(c, GateOutcome::kSkip, GateFinding::kEmulatedTiming);
  }
  if (row.deltas.size() < 2 || !row.deltas[1]) {
    return found(c, GateOutcome::kFail, GateFinding::kNoComparison);
  }
  const Delta& d = *row.deltas[1];
  const SampleStats& a = row.stats[0];
  const SampleStats& b = row.stats[1];
  c.base_median = a.median;
  c.cand_median = b.median;
  c.delta = d;
  if (a.n < kMinSamples || b.n < kMinSamples) {
    return found(c, GateOutcome::kFail, GateFinding::kTooFewSamples);
  }
  const bool moved = resolved(d);
  if (rule.equal) {
    if (moved) {
      return found(c, GateOutcome::kFail, GateFinding::kChangedNotEqual);
    }
    return found(c, GateOutcome::kPass, GateFinding::kUnchanged);
  }
  const Better better = rule.better.value_or(row.info.better);
  c.limit = *rule.max_regression;
  if (moved && worse_change(better, d, a, b, moved) > c.limit) {
    return found(c, GateOutcome::kFail,
                 better == Better::kNone ? GateFinding::kChangedBeyond : GateFinding::kRegressed);
  }
  if (d.verdict == Verdict::kInconclusive) {
    return found(c, GateOutcome::kPass, GateFinding::kInconclusive);
  }
  return found(c, GateOutcome::kPass,
               moved ? GateFinding::kWithinLimit : GateFinding::kNoResolvedChange);
}

}  // namespace

std::string_view gate_outcome_name(GateOutcome o) {
  switch (o) {
    case GateOutcome::kPass:
      return "pass";
    case GateOutcome::kFail:
      return "FAIL";
    case GateOutcome::kFlaky:
      return "flaky";
    case GateOutcome::kInfra:
      return "INFRA";
    case GateOutcome::kKnown:
      return "known";
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
    for (size_t i = 0; i < out.comparison.groups.size(); ++i) {
      const ComparisonGroup& g = out.comparison.groups[i];
      if (!gate_selects(rule.runs, g)) continue;
      for (const MetricRow& row : g.rows) {
        if (row.metric != rule.metric) continue;
        ++matched;
        out.cases.push_back(judge(rule, g, row));
        out.cases.back().group_index = static_cast<int>(i);
      }
    }
    if (matched == 0) {
      out.cases.push_back({.rule = rule.name,
                           .group = "-",
                           .metric = rule.metric,
                           .outcome = GateOutcome::kFail,
                           .finding = GateFinding::kNoMatch,
                           .selector = selector_text(rule.runs)});
    }
  }
  count_outcomes(out);
  return out;
}

void count_outcomes(GateReport& r) {
  r.passed = r.failed = r.skipped = r.flaky = r.infra = r.known = 0;
  for (const GateCase& c : r.cases) {
    switch (c.outcome) {
      case GateOutcome::kPass:
        ++r.passed;
        break;
      case GateOutcome::kFail:
        ++r.failed;
        break;
      case GateOutcome::kSkip:
        ++r.skipped;
        break;
      case GateOutcome::kFlaky:
        ++r.flaky;
        break;
      case GateOutcome::kInfra:
        ++r.infra;
        break;
      case GateOutcome::kKnown:
        ++r.known;
        break;
    }
  }
}

}  // namespace foliolab
