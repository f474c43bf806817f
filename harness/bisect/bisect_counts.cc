#include "bisect/bisect_counts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "analysis/session_report.h"
#include "catalog/metric_catalog.h"
#include "util/text.h"

namespace foliolab {

Result<std::unique_ptr<CountBisectEvaluator>> CountBisectEvaluator::make(BisectCandidates c,
                                                                         std::string metric,
                                                                         RunSelector where,
                                                                         SessionRun run_session) {
  FL_TRY(check_candidates(c));
  const MetricInfo info = metric_info(metric, declared_metrics(c.exp), c.exp.thresholds);
  if (info.kind == MetricKind::kTiming) {
    return make_error(fmt::format(
        "--metric {}: a timing, which the sequential test follows (bisect/bisect_timings.h), "
        "not the exact values of a count",
        metric));
  }
  return std::unique_ptr<CountBisectEvaluator>(new CountBisectEvaluator(
      std::move(c), std::move(metric), std::move(where), std::move(run_session), info.threshold));
}

bool CountBisectEvaluator::same(double a, double b) const {
  return std::fabs(a - b) <= threshold_.of(std::max(std::fabs(a), std::fabs(b)));
}

// "good" / "bad" for a candidate like an endpoint, its value for a third one, nothing when its
// reps disagree or it has none.
std::optional<std::string> CountBisectEvaluator::classify(size_t i,
                                                          const std::vector<double>& values) const {
  if (values.empty()) return std::nullopt;
  const double v = values.front();
  for (double x : values) {
    if (!same(x, v)) return std::nullopt;
  }
  if (i == 0) return "good";
  if (!good_.empty() && same(v, good_.front())) return "good";
  if (!bad_.empty() && same(v, bad_.front())) return "bad";
  if (i + 1 == c_.runs.size()) return "bad";
  return fmt::format("{:g}", v);
}

Result<BisectStep> CountBisectEvaluator::observe(size_t i) {
  BisectStep step{.candidate = i};
  auto values = measure(c_.exp, {c_.runs[i]}, &step.session);
  if (!values.ok()) return values.error();
  step.values = values->front();
  step.cls = classify(i, step.values);
  step.evidence = step.values.empty() ? "the run failed or has no " + metric_
                  : step.cls          ? values_text(step.values)
                                      : values_text(step.values) + " (reps disagree)";
  restore(step);
  return step;
}

Result<BisectConfirmation> CountBisectEvaluator::confirm(size_t parent, size_t culprit, int runs) {
  BisectConfirmation c{.parent = parent, .culprit = culprit};
  auto m = measure_interleaved(c_.exp, {c_.runs[parent], c_.runs[culprit]}, runs, c.sessions);
  if (!m.ok()) return m.error();
  const std::vector<double>&before = m->before, &after = m->after;
  c.confirmed = m->complete;
  const auto cls_before = classify(parent, before), cls_after = classify(culprit, after);
  c.confirmed = c.confirmed && cls_before && cls_after && *cls_before != *cls_after;
  // The change agrees in direction with the endpoints' and is at least half of it.
  if (c.confirmed && !good_.empty() && !bad_.empty()) {
    const double endpoint = bad_.front() - good_.front(), change = after.front() - before.front();
    c.confirmed = change * endpoint > 0 && std::fabs(change) >= std::fabs(endpoint) / 2;
  }
  c.evidence = fmt::format("{} → {}: {} | {}", c_.names[parent], c_.names[culprit],
                           values_text(before), values_text(after));
  if (c.confirmed && !c_.patch_names.empty() && culprit > 0 && !bad_.empty()) {
    auto why = without_check(culprit, after.front() - before.front(), c);
    if (!why.ok()) return why.error();
    c.confirmed = why->empty();
  }
  return c;
}

// The whole series but the culprit: removing it must undo at least half of the culprit's own
// change, in its direction (with one culprit: back to the good value). When the rest does not
// apply without it, or the run fails, that is said and the confirmation stands on the rest.
Result<std::string> CountBisectEvaluator::without_check(size_t culprit, double own,
                                                        BisectConfirmation& c) {
  const size_t patch = c_.first_patch + culprit;  // 1-based, in the whole series
  auto rest = series_without(c_, patch - 1, where_);
  if (!rest.ok()) return rest.error();
  std::string session;
  auto v = measure(rest->first, {rest->second}, &session);
  if (!v.ok()) return v.error();
  c.sessions.push_back(session);
  const std::vector<double>& w = v->front();
  const std::string label = fmt::format("without patch {}", patch);
  if (w.empty()) {
    c.evidence += fmt::format(
        "; {}: not measured (the rest does not apply without it, or the run "
        "failed: {})",
        label, session);
    return std::string();
  }
  const double undone = bad_.front() - w.front();
  c.evidence += fmt::format("; {}: {}", label, values_text(w));
  if (undone * own > 0 && std::fabs(undone) >= std::fabs(own) / 2) return std::string();
  c.evidence += " (the change stays without it)";
  return std::string("the change stays without the culprit");
}

}  // namespace foliolab
