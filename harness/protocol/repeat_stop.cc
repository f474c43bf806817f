#include "protocol/repeat_stop.h"

#include <fmt/format.h>

#include <cmath>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

constexpr std::string_view kHalfWidth = "half_width.";

// The watched metric's values over the measured reps (a rep without it adds none).
std::vector<double> measured(const std::vector<RepView>& reps, int warmup,
                             const std::string& metric) {
  std::vector<double> out;
  for (size_t i = static_cast<size_t>(warmup); i < reps.size(); ++i) {
    const auto& metrics = *reps[i].metrics;
    if (auto m = metrics.find(metric); m != metrics.end()) out.push_back(m->second);
  }
  return out;
}

std::vector<std::vector<double>> series_at(const RepeatPlan& plan, const std::vector<RepView>& reps,
                                           size_t n) {
  std::vector<RepView> first(reps.begin(), reps.begin() + static_cast<long>(plan.warmup + n));
  std::vector<std::vector<double>> out;
  for (const std::string& m : plan.metrics) out.push_back(measured(first, plan.warmup, m));
  return out;
}

bool same_width(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return std::fabs(*a - *b) <= 1e-6 * std::max(std::fabs(*a), 1e-12);
}

// The agent's claim against the host's rule: the same stop at n and none before it, the same
// half-widths (within rounding: the two sides may round differently, e.g. fused multiply-add).
std::string check_claim(const RepeatPlan& plan, const std::vector<RepView>& reps,
                        const RepeatStop& stop) {
  const size_t n = static_cast<size_t>(stop.n);
  const auto series = series_at(plan, reps, n);
  const RepeatStopReason now = decide_repeat(stop.n, plan.min, plan.max, *plan.ci, series);
  if (now != stop.reason) {
    return fmt::format("the agent stopped ({}) after {} reps where the host's rule says {}",
                       repeat_stop_reason_name(stop.reason), n, repeat_stop_reason_name(now));
  }
  if (n > static_cast<size_t>(plan.min)) {
    const auto before = series_at(plan, reps, n - 1);
    if (decide_repeat(stop.n - 1, plan.min, plan.max, *plan.ci, before) !=
        RepeatStopReason::kContinue) {
      return fmt::format("the agent went on after rep {}, where the host's rule stops", n - 1);
    }
  }
  if (stop.half_width.size() != plan.metrics.size()) {
    return fmt::format("repeat-stop names {} metrics, the job {}", stop.half_width.size(),
                       plan.metrics.size());
  }
  for (size_t i = 0; i < plan.metrics.size(); ++i) {
    const auto& [name, reported] = stop.half_width[i];
    std::optional<double> host;
    if (series[i].size() == n) host = relative_half_width(series[i]);
    if (name != plan.metrics[i] || !same_width(reported, host)) {
      return fmt::format("repeat-stop half-width of {} is {}, the host computes {}", name,
                         reported ? fmt::format("{:.6g}", *reported) : "none",
                         host ? fmt::format("{:.6g}", *host) : "none");
    }
  }
  return {};
}

std::string check_adaptive(const RepeatPlan& plan, const std::vector<RepView>& reps,
                           const std::optional<RepeatStop>& stop) {
  if (!stop) return "adaptive repetitions ended without a repeat-stop record";
  const size_t measured_reps = reps.size() - static_cast<size_t>(plan.warmup);
  if (stop->warmup != plan.warmup || static_cast<size_t>(stop->n) != measured_reps) {
    return fmt::format("repeat-stop says {} reps after {} warm-up, the guest reported {} after {}",
                       stop->n, stop->warmup, measured_reps, plan.warmup);
  }
  if (stop->n < plan.min || stop->n > plan.max) {
    return fmt::format("repeat-stop after {} reps, outside {}..{}", stop->n, plan.min, plan.max);
  }
  if (!same_width(stop->target, *plan.ci)) {
    return fmt::format("repeat-stop target {} is not the job's {}", stop->target, *plan.ci);
  }
  return check_claim(plan, reps, *stop);
}

}  // namespace

std::optional<RepeatStop> parse_repeat_stop(const KeyValues& kv, std::string* why) {
  RepeatStop stop;
  bool has_reason = false, has_n = false;
  for (const auto& [key, value] : kv) {
    if (key == "reason") {
      auto r = parse_repeat_stop_reason(value);
      has_reason = r == RepeatStopReason::kReached || r == RepeatStopReason::kMax;
      if (has_reason) stop.reason = *r;
    } else if (key == "n" || key == "warmup") {
      auto v = parse_int(value);
      if (!v || *v < 0 || *v > 1000000) {
        *why = fmt::format("{} is not a count: \"{}\"", key, bounded(value, 64));
        return std::nullopt;
      }
      (key == "n" ? stop.n : stop.warmup) = static_cast<int>(*v);
      has_n = has_n || key == "n";
    } else if (key == "target" || key.starts_with(kHalfWidth)) {
      auto v = value == "none" ? std::nullopt : parse_double(value);
      if (value != "none" && (!v || !std::isfinite(*v) || *v < 0)) {
        *why = fmt::format("{} is not a number: \"{}\"", bounded(key, 128), bounded(value, 64));
        return std::nullopt;
      }
      if (key == "target") {
        stop.target = v.value_or(0);
      } else {
        stop.half_width.emplace_back(bounded(key.substr(kHalfWidth.size()), 128), v);
      }
    }
  }
  if (!has_reason || !has_n) {
    *why = "missing or unknown reason, or no n";
    return std::nullopt;
  }
  return stop;
}

std::string check_reps(const RepeatPlan& plan, const std::vector<RepView>& reps,
                       const std::optional<RepeatStop>& stop) {
  const size_t warm = static_cast<size_t>(plan.warmup);
  for (size_t i = 0; i < reps.size(); ++i) {
    if (reps[i].warmup != (i < warm)) {
      return fmt::format("rep {} is {}a warm-up rep, the job has {} of them", reps[i].rep,
                         reps[i].warmup ? "" : "not ", warm);
    }
  }
  if (reps.size() < warm) {
    return fmt::format("expected {} warm-up repetitions, guest reported {} reps", warm,
                       reps.size());
  }
  if (plan.adaptive()) return check_adaptive(plan, reps, stop);
  if (stop) return "a repeat-stop record for a fixed count";
  if (reps.size() != warm + static_cast<size_t>(plan.min)) {
    return fmt::format("expected {} repetitions, guest reported {}", warm + plan.min, reps.size());
  }
  return {};
}

RepeatStop fixed_stop(const RepeatPlan& plan, const std::vector<RepView>& reps) {
  RepeatStop stop{.reason = RepeatStopReason::kFixed,
                  .n = static_cast<int>(reps.size()) - plan.warmup,
                  .warmup = plan.warmup,
                  .target = plan.ci.value_or(0)};
  for (const std::string& m : plan.metrics) {
    const auto x = measured(reps, plan.warmup, m);
    stop.half_width.emplace_back(
        m, static_cast<int>(x.size()) == stop.n ? relative_half_width(x) : std::nullopt);
  }
  return stop;
}

}  // namespace foliolab
