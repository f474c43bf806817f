#include "bisect/bisect_timings.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/comparison.h"
#include "analysis/session_report.h"
#include "catalog/metric_catalog.h"
#include "util/text.h"

namespace foliolab {
namespace {

std::string decision_text(const SequentialStep& s, const std::vector<double>& values) {
  const SequentialDecision& d = s.decision;
  std::string out = values_text(values) + ": " + std::string(sequential_class_name(d.cls));
  if (d.note != SequentialNote::kNone) out += fmt::format(" ({})", sequential_note_name(d.note));
  if (!std::isnan(d.position)) {
    out += fmt::format(", at {:.2f} of the way from good to bad, p {:.2g} vs good, {:.2g} vs bad",
                       d.position, d.p_good, d.p_bad);
  }
  return out;
}

}  // namespace

std::string timing_bisect_refusal(const Experiment& exp, const std::string& metric) {
  const MachineSpec& m = exp.machine;
  if (m.timing == TimingMode::kIcount || m.backend == "host" || m.accel == AccelChoice::kKvm) {
    return "";
  }
  return fmt::format(
      "--metric {}: a timing, and these guests run under TCG with wall-clock time (or KVM only "
      "if a probe allows): such timings follow the host's speed and load, so a step cannot be "
      "told from noise. Bisect it with --timing icount (instruction-time), --accel kvm or "
      "--backend host",
      metric);
}

Result<std::unique_ptr<TimingBisectEvaluator>> TimingBisectEvaluator::make(
    BisectCandidates c, std::string metric, SessionRun run_session, TimingBisectOptions opt) {
  FL_TRY(check_candidates(c));
  if (std::string why = timing_bisect_refusal(c.exp, metric); !why.empty()) {
    return make_error(why);
  }
  if (opt.plan.max_reps < opt.plan.first_reps) {
    return make_error(fmt::format("--max-reps {}: at least the first look's {} reps",
                                  opt.plan.max_reps, opt.plan.first_reps));
  }
  opt.endpoint_reps = std::max(opt.endpoint_reps, min_endpoint_reps(opt.plan));
  const MetricInfo info = metric_info(metric, declared_metrics(c.exp));
  return std::unique_ptr<TimingBisectEvaluator>(new TimingBisectEvaluator(
      std::move(c), std::move(metric), std::move(run_session), opt, info));
}

Result<std::vector<double>> TimingBisectEvaluator::more(size_t i, size_t reps,
                                                        std::vector<std::string>& sessions) {
  auto [exp, runs] = with_reps(c_.exp, {c_.runs[i]}, static_cast<int>(reps));
  std::string session;
  auto v = measure(exp, runs, &session);
  if (!v.ok()) return v.error();
  sessions.push_back(session);
  return v->front();
}

BisectStep TimingBisectEvaluator::endpoint(size_t i, std::vector<double> values,
                                           std::vector<std::string> sessions) {
  BisectStep step{.candidate = i, .session = join(sessions, ", "), .values = std::move(values)};
  if (step.values.empty()) {
    step.evidence = "the run failed or has no " + metric_;
    return step;
  }
  (i == 0 ? good_ : bad_) = step.values;
  step.cls = i == 0 ? "good" : "bad";
  step.evidence = values_text(step.values);
  if (i > 0 && !good_.empty()) {
    const SequentialDecision ends = classify_sequential(good_, bad_, {}, opt_.plan);
    if (ends.note == SequentialNote::kEndsAlike) {
      step.cls = "good";  // the same class as the good end: the search says "does not reproduce"
      step.evidence += " (no verdict between the ends)";
    }
  }
  return step;
}

Result<BisectStep> TimingBisectEvaluator::observe(size_t i) {
  std::vector<std::string> sessions;
  if (i == 0 || i + 1 == c_.runs.size()) {
    auto v = more(i, opt_.endpoint_reps, sessions);
    if (!v.ok()) return v.error();
    return endpoint(i, std::move(*v), std::move(sessions));
  }
  std::vector<double> values;
  SequentialStep s = sequential_step(good_, bad_, values, opt_.plan);
  bool failed = false;
  while (!s.cls && s.more_reps > 0) {
    auto v = more(i, s.more_reps, sessions);
    if (!v.ok()) return v.error();
    if (v->empty()) {
      failed = true;  // the run failed: a skip
      break;
    }
    values.insert(values.end(), v->begin(), v->end());
    s = sequential_step(good_, bad_, values, opt_.plan);
  }
  BisectStep step{.candidate = i, .cls = s.cls, .session = join(sessions, ", "), .values = values};
  step.evidence = failed ? "a run failed or has no " + metric_ : decision_text(s, values);
  return step;
}

Result<BisectConfirmation> TimingBisectEvaluator::confirm(size_t parent, size_t culprit, int runs) {
  BisectConfirmation c{.parent = parent, .culprit = culprit};
  auto [exp, pair] =
      with_reps(c_.exp, {c_.runs[parent], c_.runs[culprit]}, static_cast<int>(opt_.confirm_reps));
  auto m = measure_interleaved(exp, pair, runs, c.sessions);
  if (!m.ok()) return m.error();
  const std::vector<double>&before = m->before, &after = m->after;
  const RunConditions cond{.icount = exp.machine.timing == TimingMode::kIcount};
  const Delta ends = compare_samples(info_, sample_stats(good_), sample_stats(bad_), {}, cond);
  const Delta change = compare_samples(info_, sample_stats(before), sample_stats(after), {}, cond);
  const bool directional =
      change.verdict != Verdict::kNoChange && change.verdict != Verdict::kInconclusive;
  c.confirmed = directional && change.rel_change * ends.rel_change > 0 &&
                std::fabs(change.rel_change) >= std::fabs(ends.rel_change) / 2;
  c.evidence =
      fmt::format("{} → {}: {:+.1f} % (p {:.2g}; the ends {:+.1f} %), {} | {}", c_.names[parent],
                  c_.names[culprit], 100 * change.rel_change, change.mann_whitney_p,
                  100 * ends.rel_change, values_text(before), values_text(after));
  return c;
}

std::string TimingBisectEvaluator::predicted_cost(int confirm_runs) const {
  const BisectCost cost =
      predict_bisect_cost(opt_.plan, {.candidates = c_.runs.size(),
                                      .endpoint_reps = opt_.endpoint_reps,
                                      .confirm_runs = static_cast<size_t>(confirm_runs),
                                      .confirm_reps = opt_.confirm_reps,
                                      .confirm_sides = 2});
  return fmt::format(
      "predicted: {}-{} steps after the ends; {}-{} reps in {}-{} boots (at most {} reps if "
      "every step is undecided), ends and confirmation included",
      cost.steps_best, cost.steps_worst, cost.reps_best, cost.reps_worst, cost.runs_best,
      cost.runs_worst, cost.reps_bound);
}

}  // namespace foliolab
