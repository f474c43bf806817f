#include "model/metric_kind.h"

namespace foliolab {
namespace {

constexpr std::string_view kNames[] = {"none", "higher", "lower"};
constexpr std::string_view kKinds[] = {"count", "timing"};

}  // namespace

double CountThreshold::of(double scale) const {
  const double r = rel * (scale < 0 ? -scale : scale);
  return r > abs ? r : abs;
}

bool ThresholdRule::matches(std::string_view name) const {
  if (!metric.empty() && metric.back() == '*') {
    return name.starts_with(std::string_view(metric).substr(0, metric.size() - 1));
  }
  return name == metric;
}

std::string_view better_name(Better b) { return kNames[static_cast<size_t>(b)]; }
std::string_view metric_kind_name(MetricKind k) { return kKinds[static_cast<size_t>(k)]; }

std::optional<Better> parse_better(std::string_view text) {
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == text) return static_cast<Better>(i);
  }
  return std::nullopt;
}

std::optional<MetricKind> parse_metric_kind(std::string_view text) {
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    if (kKinds[i] == text) return static_cast<MetricKind>(i);
  }
  return std::nullopt;
}

}  // namespace foliolab
