#include "model/distribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace foliolab {
namespace {

constexpr int kSubBuckets = 32;           // log-linear bins an octave
constexpr size_t kMaxExactValues = 1024;  // distinct values kept exactly before binning
constexpr int kExponentBias = 2000;       // frexp exponents are within +-1100

// A positive value's bin: (exponent + bias) * 32 + sub-bucket + 1, so every bin is >= 1.
int64_t positive_bin(double v) {
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, m in [0.5, 1)
  const int sub = std::min(kSubBuckets - 1, static_cast<int>((m - 0.5) * 2 * kSubBuckets));
  return static_cast<int64_t>(e + kExponentBias) * kSubBuckets + sub + 1;
}

// [lo, hi) of a positive bin.
std::pair<double, double> positive_range(int64_t bin) {
  const int64_t k = bin - 1;
  const int e = static_cast<int>(k / kSubBuckets) - kExponentBias;
  const int sub = static_cast<int>(k % kSubBuckets);
  const double step = 0.5 / kSubBuckets;
  return {std::ldexp(0.5 + sub * step, e), std::ldexp(0.5 + (sub + 1) * step, e)};
}

int64_t bin_of(double v) {
  if (v == 0) return 0;
  return v > 0 ? positive_bin(v) : -positive_bin(-v);
}

DistributionBucket bucket_of(int64_t bin, int64_t count) {
  if (bin == 0) return {0, 0, count};
  const auto [lo, hi] = positive_range(bin > 0 ? bin : -bin);
  return bin > 0 ? DistributionBucket{lo, hi, count} : DistributionBucket{-hi, -lo, count};
}

}  // namespace

double Distribution::quantile(double q) const {
  if (count <= 0 || buckets.empty()) return 0;
  if (q >= 1) return max;
  const double rank = std::max(1.0, std::ceil(q * static_cast<double>(count)));
  double before = 0;
  for (const DistributionBucket& b : buckets) {
    const double c = static_cast<double>(b.count);
    if (before + c >= rank) {
      const double v = b.lo + (b.hi - b.lo) * (rank - before - 0.5) / c;
      return std::clamp(v, min, max);
    }
    before += c;
  }
  return max;
}

std::string distribution_problem(const Distribution& d) {
  if (d.unit.size() > kMaxDistributionUnit) return "unit longer than 16 bytes";
  if (d.count < 1) return "count below 1";
  if (d.buckets.empty() || d.buckets.size() > kMaxDistributionBuckets) {
    return fmt::format("{} buckets (1 to {})", d.buckets.size(), kMaxDistributionBuckets);
  }
  if (!std::isfinite(d.sum) || !std::isfinite(d.min) || !std::isfinite(d.max) || d.min > d.max) {
    return "sum, min or max not finite, or min above max";
  }
  int64_t total = 0;
  for (size_t i = 0; i < d.buckets.size(); ++i) {
    const DistributionBucket& b = d.buckets[i];
    if (!std::isfinite(b.lo) || !std::isfinite(b.hi) || b.lo > b.hi || b.count < 1) {
      return fmt::format("bucket {}: needs lo <= hi and a count >= 1", i);
    }
    if (i > 0) {
      const DistributionBucket& prev = d.buckets[i - 1];
      if (b.lo < prev.hi || (prev.lo == prev.hi && b.lo == prev.hi)) {
        return fmt::format("bucket {} overlaps the one before or is out of order", i);
      }
    }
    if (b.count > d.count - total) return "buckets count more than count";
    total += b.count;
  }
  if (total != d.count) return fmt::format("buckets count {}, count says {}", total, d.count);
  return "";
}

std::optional<QuantileName> parse_quantile_name(std::string_view metric) {
  const size_t dot = metric.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  for (const DistributionQuantile& q : kDistributionQuantiles) {
    if (metric.substr(dot + 1) == q.suffix) return QuantileName{metric.substr(0, dot), q};
  }
  return std::nullopt;
}

std::optional<double> distribution_value(const std::map<std::string, Distribution>& dists,
                                         std::string_view metric) {
  if (dists.empty()) return std::nullopt;
  const size_t dot = metric.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto d = dists.find(std::string(metric.substr(0, dot)));
  if (d == dists.end()) return std::nullopt;
  if (metric.substr(dot + 1) == kDistributionCountSuffix) {
    return static_cast<double>(d->second.count);
  }
  if (auto q = parse_quantile_name(metric)) return d->second.quantile(q->quantile.q);
  return std::nullopt;
}

std::vector<std::string> distribution_value_names(const std::string& name) {
  std::vector<std::string> out;
  for (const DistributionQuantile& q : kDistributionQuantiles) {
    out.push_back(name + "." + std::string(q.suffix));
  }
  out.push_back(name + "." + std::string(kDistributionCountSuffix));
  return out;
}

void DistributionBuilder::add(double value) {
  if (d_.count == 0) d_.min = d_.max = value;
  d_.min = std::min(d_.min, value);
  d_.max = std::max(d_.max, value);
  d_.sum += value;
  ++d_.count;
  ++bins_[bin_of(value)];
  // Every distinct value exactly while there are few of them (exact_ keeps them until then).
  if (exact_.size() <= kMaxExactValues) ++exact_[value];
}

Distribution DistributionBuilder::take() {
  Distribution d = d_;
  if (exact_.size() <= kMaxExactValues) {
    for (const auto& [v, c] : exact_) d.buckets.push_back({v, v, c});
  } else {
    for (const auto& [bin, c] : bins_) d.buckets.push_back(bucket_of(bin, c));
  }
  return d;
}

}  // namespace foliolab
