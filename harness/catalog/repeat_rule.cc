#include "catalog/repeat_rule.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>

namespace foliolab {
namespace {

struct T975Row {
  long df;
  double q;
};
constexpr T975Row kT975[] = {
#define FL_T975(df, q) {df, q},
#include "../../images/agent/t975.h"
#undef FL_T975
};

constexpr std::string_view kReasonNames[] = {"continue", "reached", "max", "fixed"};

void mean_var(const std::vector<double>& x, double* mean, double* var) {
  double sum = 0, ss = 0;
  for (double v : x) sum += v;
  const double n = static_cast<double>(x.size());
  *mean = sum / n;
  for (double v : x) ss += (v - *mean) * (v - *mean);
  *var = x.size() > 1 ? ss / (n - 1) : 0;
}

}  // namespace

std::string_view repeat_stop_reason_name(RepeatStopReason r) {
  return kReasonNames[static_cast<size_t>(r)];
}

std::optional<RepeatStopReason> parse_repeat_stop_reason(std::string_view name) {
  for (size_t i = 0; i < std::size(kReasonNames); ++i) {
    if (kReasonNames[i] == name) return static_cast<RepeatStopReason>(i);
  }
  return std::nullopt;
}

std::optional<double> RepeatStop::widest() const {
  std::optional<double> out;
  for (const auto& [metric, hw] : half_width) {
    if (!hw) return std::nullopt;
    out = std::max(out.value_or(0), *hw);
  }
  return out;
}

double t975(long df) {
  double q = kT975[0].q;
  for (size_t i = 0; i < std::size(kT975); ++i) {
    if (kT975[i].df == 0) return df > kT975[i - 1].df ? kT975[i].q : q;
    if (kT975[i].df > df) break;
    q = kT975[i].q;
  }
  return q;
}

bool half_width_within(const std::vector<double>& x, double ci) {
  if (x.size() < 2) return false;
  double mean = 0, var = 0;
  mean_var(x, &mean, &var);
  const long n = static_cast<long>(x.size());
  const double t = t975(n - 1);
  return t * t * var / static_cast<double>(n) <= ci * ci * mean * mean;
}

std::optional<double> relative_half_width(const std::vector<double>& x) {
  if (x.size() < 2) return std::nullopt;
  double mean = 0, var = 0;
  mean_var(x, &mean, &var);
  if (var == 0) return 0.0;
  if (mean == 0) return std::nullopt;
  const long n = static_cast<long>(x.size());
  return t975(n - 1) * std::sqrt(var / static_cast<double>(n)) / std::fabs(mean);
}

RepeatStopReason decide_repeat(long n, long min, long max, double ci,
                               const std::vector<std::vector<double>>& series) {
  if (n < min) return RepeatStopReason::kContinue;
  bool all = true;
  for (const auto& s : series) {
    all = all && static_cast<long>(s.size()) == n && half_width_within(s, ci);
  }
  if (all) return RepeatStopReason::kReached;
  return n >= max ? RepeatStopReason::kMax : RepeatStopReason::kContinue;
}

}  // namespace foliolab
