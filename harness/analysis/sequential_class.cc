#include "analysis/sequential_class.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include <boost/math/distributions/students_t.hpp>

#include "analysis/comparison.h"

namespace foliolab {
namespace {

bool every_positive(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

struct LogSample {
  double mean = 0, var_of_mean = 0, df = 0;  // of log x; var_of_mean = s² / n
};

LogSample log_sample(std::span<const double> v) {
  std::vector<double> l;
  for (double x : v) l.push_back(std::log(x));
  const Summary s = summarize(l);
  const double n = static_cast<double>(l.size());
  return {s.mean, s.stddev * s.stddev / n, n - 1};
}

// The two-sided (1 - alpha) interval of log c - (log g + log b) / 2 (of the means), as
// (low, high), with Welch-Satterthwaite df but at most the candidate's n - 1 (Satterthwaite
// alone is liberal when the candidate's few reps dominate); the estimate alone when every
// variance is zero.
std::pair<double, double> midpoint_interval(const LogSample& g, const LogSample& b,
                                            const LogSample& c, double alpha) {
  const double est = c.mean - (g.mean + b.mean) / 2;
  const double parts[] = {c.var_of_mean, g.var_of_mean / 4, b.var_of_mean / 4};
  const double dfs[] = {c.df, g.df, b.df};
  double var = 0, denom = 0;
  for (int i = 0; i < 3; ++i) {
    var += parts[i];
    denom += parts[i] * parts[i] / dfs[i];
  }
  if (var == 0) return {est, est};
  const double df = std::min(c.df, var * var / denom);
  const double t = boost::math::quantile(boost::math::students_t(df), 1 - alpha / 2);
  const double half = t * std::sqrt(var);
  return {est - half, est + half};
}

// Candidate c against an end e at the look's alpha (the verdict rule's "resolved").
bool apart_from(std::span<const double> e, std::span<const double> c, double alpha) {
  return change_resolved(relative_change_interval(e, c, 1 - alpha), rank_test(e, c), alpha);
}

// The ends give a verdict: resolved at the plan's alpha and more than min_effect apart.
bool ends_apart(std::span<const double> good, std::span<const double> bad,
                const SequentialPlan& plan) {
  if (good.size() < kMinSamples || bad.size() < kMinSamples) return false;
  const Interval ci = relative_change_interval(good, bad);
  return change_resolved(ci, rank_test(good, bad), plan.alpha) &&
         std::fabs(ci.estimate) > plan.min_effect;
}

SequentialDecision undecided(SequentialDecision d, SequentialNote note) {
  d.cls = SequentialClass::kUndecided;
  d.note = note;
  return d;
}

// One look at alpha (the candidate at a scheduled size).
SequentialDecision look(std::span<const double> good, std::span<const double> bad,
                        std::span<const double> cand, double alpha, bool last) {
  SequentialDecision d;
  d.alpha = alpha;
  const LogSample g = log_sample(good), b = log_sample(bad), c = log_sample(cand);
  const double span = b.mean - g.mean;  // non-zero: the ends are apart
  d.position = (c.mean - g.mean) / span;
  d.p_good = rank_test(good, cand).p;
  d.p_bad = rank_test(bad, cand).p;
  // The midpoint interval, oriented so that negative is good's side.
  const auto [low, high] = midpoint_interval(g, b, c, alpha);
  const double lo = span > 0 ? low : -high, hi = span > 0 ? high : -low;
  const bool from_good = apart_from(good, cand, alpha);
  const bool from_bad = apart_from(bad, cand, alpha);
  // Resolved from an end means moved from it towards the other, given (a)'s side.
  if (hi < 0 && from_bad && !from_good) {
    d.cls = SequentialClass::kLikeGood;
  } else if (lo > 0 && from_good && !from_bad) {
    d.cls = SequentialClass::kLikeBad;
  } else if (from_good && from_bad) {
    return undecided(d, SequentialNote::kApartFromBoth);
  } else if (last) {
    return undecided(d, SequentialNote::kMaxReps);
  }
  return d;
}

}  // namespace

std::vector<size_t> look_schedule(const SequentialPlan& plan) {
  std::vector<size_t> looks;
  const size_t first = std::max<size_t>(plan.first_reps, kMinSamples);
  for (size_t n = first; n < plan.max_reps; n *= 2) looks.push_back(n);
  looks.push_back(std::max(plan.max_reps, first));
  return looks;
}

double look_alpha(const SequentialPlan& plan) {
  return plan.alpha / static_cast<double>(look_schedule(plan).size());
}

size_t min_endpoint_reps(const SequentialPlan& plan) {
  const size_t first = look_schedule(plan).front();
  const double alpha = look_alpha(plan);
  size_t n = kMinSamples;
  while (min_rank_p(first, n) > alpha) ++n;
  return n;
}

std::string_view sequential_class_name(SequentialClass c) {
  switch (c) {
    case SequentialClass::kLikeGood:
      return "like good";
    case SequentialClass::kLikeBad:
      return "like bad";
    case SequentialClass::kNeedMore:
      return "need more";
    case SequentialClass::kUndecided:
      break;
  }
  return "undecided";
}

std::string_view sequential_note_name(SequentialNote n) {
  switch (n) {
    case SequentialNote::kNone:
      return "";
    case SequentialNote::kEndsAlike:
      return "ends alike";
    case SequentialNote::kNotPositive:
      return "not positive";
    case SequentialNote::kApartFromBoth:
      return "apart from both ends";
    case SequentialNote::kMaxReps:
      break;
  }
  return "max reps";
}

SequentialDecision classify_sequential(std::span<const double> good, std::span<const double> bad,
                                       std::span<const double> candidate,
                                       const SequentialPlan& plan) {
  if (!every_positive(good) || !every_positive(bad) || !every_positive(candidate)) {
    return undecided({}, SequentialNote::kNotPositive);
  }
  if (!ends_apart(good, bad, plan)) return undecided({}, SequentialNote::kEndsAlike);
  const std::vector<size_t> looks = look_schedule(plan);
  const size_t n = candidate.size();
  const bool last = n >= looks.back();
  if (!last && std::find(looks.begin(), looks.end(), n) == looks.end()) {
    SequentialDecision d;
    d.more_reps = *std::upper_bound(looks.begin(), looks.end(), n) - n;
    return d;
  }
  SequentialDecision d = look(good, bad, candidate, look_alpha(plan), last);
  if (d.cls == SequentialClass::kNeedMore) {
    d.more_reps = *std::upper_bound(looks.begin(), looks.end(), n) - n;
  }
  return d;
}

SequentialStep sequential_step(const std::vector<double>& good, const std::vector<double>& bad,
                               const std::vector<double>& candidate, const SequentialPlan& plan) {
  SequentialStep s;
  s.decision = classify_sequential(good, bad, candidate, plan);
  s.more_reps = s.decision.more_reps;
  if (s.decision.cls == SequentialClass::kLikeGood) s.cls = "good";
  if (s.decision.cls == SequentialClass::kLikeBad) s.cls = "bad";
  return s;
}

BisectCost predict_bisect_cost(const SequentialPlan& plan, const BisectCostInput& in) {
  BisectCost c;
  const std::vector<size_t> looks = look_schedule(plan);
  const size_t inner = in.candidates > 2 ? in.candidates - 2 : 0;
  if (inner > 0) {
    c.steps_best = std::bit_width(in.candidates - 1) - 1;  // floor(log2(gaps))
    c.steps_worst = std::bit_width(inner);                 // BisectSearch::steps_left_bound
  }
  const size_t fixed_reps =
      2 * in.endpoint_reps + in.confirm_sides * in.confirm_runs * in.confirm_reps;
  const size_t fixed_runs = 2 + in.confirm_sides * in.confirm_runs;
  c.reps_best = fixed_reps + c.steps_best * looks.front();
  c.reps_worst = fixed_reps + c.steps_worst * looks.back();
  c.reps_bound = fixed_reps + inner * looks.back();
  c.runs_best = fixed_runs + c.steps_best;
  c.runs_worst = fixed_runs + c.steps_worst * looks.size();
  c.runs_bound = fixed_runs + inner * looks.size();
  return c;
}

}  // namespace foliolab
