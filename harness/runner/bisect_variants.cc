#include "runner/bisect_variants.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "analysis/session_report.h"
#include "catalog/metric_catalog.h"
#include "model/matrix.h"
#include "results/store.h"
#include "util/text.h"

namespace foliolab {
namespace {

Result<size_t> knob_set_index(const Experiment& exp, const std::string& name) {
  std::vector<std::string> names;
  for (size_t i = 0; i < exp.knob_sets.size(); ++i) {
    if (exp.knob_sets[i].name == name) return i;
    names.push_back(exp.knob_sets[i].name);
  }
  return make_error(fmt::format("--variants: '{}' is not a knob set of {}{}", name, exp.name,
                                did_you_mean(name, names)));
}

// The one run of knob set `k` that `where` selects.
Result<Run> variant_run(const Experiment& exp, const std::vector<Run>& all, size_t k,
                        const RunSelector& where) {
  std::vector<Run> hits;
  for (const Run& r : all) {
    if (r.knob_set == k && selector_matches(where, exp, r)) hits.push_back(r);
  }
  if (hits.size() == 1) return hits.front();
  std::vector<std::string> ids;
  for (const Run& r : hits) ids.push_back(r.id);
  return make_error(fmt::format(
      "--where {} selects {} runs of knob set '{}'{}{}: a bisection follows one (add kernel=, "
      "arch= or workload=)",
      selector_text(where), hits.size(), exp.knob_sets[k].name, hits.empty() ? "" : ": ",
      fmt::join(ids, ", ")));
}

std::string values_text(const std::vector<double>& v) {
  std::vector<std::string> parts;
  for (double x : v) parts.push_back(fmt::format("{:g}", x));
  return fmt::format("n={}: {}", v.size(), fmt::join(parts, " "));
}

}  // namespace

Result<std::unique_ptr<VariantBisectEvaluator>> VariantBisectEvaluator::make(
    const Experiment& exp, VariantBisectSpec spec, SessionRun run_session) {
  if (spec.variants.size() < 2) {
    return make_error("--variants: at least two knob sets (the good one first, the bad one last)");
  }
  if (!spec.where.knobs.empty()) {
    return make_error("--where knobs=…: the knob sets are the candidates, given by --variants");
  }
  const MetricInfo info = metric_info(spec.metric, declared_metrics(exp));
  if (info.kind == MetricKind::kTiming) {
    return make_error(fmt::format(
        "--metric {}: a timing; bisect follows counts for now (timings need a sequential test "
        "over repeated KVM, host or icount runs, not written yet)",
        spec.metric));
  }
  const std::vector<Run> all = expand(exp);
  std::vector<Run> runs;
  for (const std::string& name : spec.variants) {
    auto k = knob_set_index(exp, name);
    if (!k.ok()) return k.error();
    auto run = variant_run(exp, all, *k, spec.where);
    if (!run.ok()) return run.error();
    runs.push_back(*run);
  }
  return std::unique_ptr<VariantBisectEvaluator>(new VariantBisectEvaluator(
      exp, std::move(spec), std::move(runs), std::move(run_session), info.threshold));
}

std::string VariantBisectEvaluator::describe(size_t i) const {
  return fmt::format("knob set '{}' ({} of {})", spec_.variants[i], i + 1, runs_.size());
}

Result<std::vector<std::vector<double>>> VariantBisectEvaluator::measure(
    const std::vector<size_t>& candidates, std::string* session) {
  std::vector<Run> runs;
  for (size_t i : candidates) runs.push_back(runs_[i]);
  auto summary = run_session_(runs);
  if (!summary.ok()) return summary.error();
  *session = summary->dir.string();
  auto store = ResultStore::open(summary->dir);
  if (!store.ok()) return store.error();
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  std::vector<std::vector<double>> out;
  for (size_t i : candidates) {
    auto rec = std::find_if(records->begin(), records->end(),
                            [&](const RunRecord& r) { return r.id.run_id == runs_[i].id; });
    if (rec == records->end() || !rec->ok()) {
      out.emplace_back();  // failed or missing: no values, a skip
      continue;
    }
    out.push_back(rec->samples(spec_.metric));
  }
  return out;
}

bool VariantBisectEvaluator::same(double a, double b) const {
  return std::fabs(a - b) <= threshold_.of(std::max(std::fabs(a), std::fabs(b)));
}

// "good" / "bad" for a candidate like an endpoint, its value for a third one, nothing when its
// reps disagree or it has none.
std::optional<std::string> VariantBisectEvaluator::classify(
    size_t i, const std::vector<double>& values) const {
  if (values.empty()) return std::nullopt;
  const double v = values.front();
  for (double x : values) {
    if (!same(x, v)) return std::nullopt;
  }
  if (i == 0) return "good";
  if (good_ && same(v, *good_)) return "good";
  if (bad_ && same(v, *bad_)) return "bad";
  if (i + 1 == runs_.size()) return "bad";
  return fmt::format("{:g}", v);
}

void VariantBisectEvaluator::restore(const BisectStep& step) {
  if (step.values.empty() || !step.cls) return;
  if (step.candidate == 0) good_ = step.values.front();
  if (step.candidate + 1 == runs_.size()) bad_ = step.values.front();
}

Result<BisectStep> VariantBisectEvaluator::observe(size_t i) {
  BisectStep step{.candidate = i};
  auto values = measure({i}, &step.session);
  if (!values.ok()) return values.error();
  step.values = values->front();
  step.cls = classify(i, step.values);
  step.evidence = step.values.empty() ? "the run failed or has no " + spec_.metric
                  : step.cls          ? values_text(step.values)
                                      : values_text(step.values) + " (reps disagree)";
  restore(step);
  return step;
}

Result<BisectConfirmation> VariantBisectEvaluator::confirm(size_t parent, size_t culprit,
                                                           int runs) {
  BisectConfirmation c{.parent = parent, .culprit = culprit, .confirmed = true};
  std::vector<double> before, after;
  for (int k = 0; k < runs; ++k) {
    // Interleaved: parent then culprit in each session, fresh boots each time.
    std::string session;
    auto v = measure({parent, culprit}, &session);
    if (!v.ok()) return v.error();
    c.sessions.push_back(session);
    before.insert(before.end(), (*v)[0].begin(), (*v)[0].end());
    after.insert(after.end(), (*v)[1].begin(), (*v)[1].end());
    c.confirmed = c.confirmed && !(*v)[0].empty() && !(*v)[1].empty();
  }
  const auto cls_before = classify(parent, before), cls_after = classify(culprit, after);
  c.confirmed = c.confirmed && cls_before && cls_after && *cls_before != *cls_after;
  // The change agrees in direction with the endpoints' and is at least half of it.
  if (c.confirmed && good_ && bad_) {
    const double endpoint = *bad_ - *good_, change = after.front() - before.front();
    c.confirmed = change * endpoint > 0 && std::fabs(change) >= std::fabs(endpoint) / 2;
  }
  c.evidence = fmt::format("{} → {}: {} | {}", spec_.variants[parent], spec_.variants[culprit],
                           values_text(before), values_text(after));
  return c;
}

}  // namespace foliolab
