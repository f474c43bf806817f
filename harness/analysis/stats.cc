#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace foliolab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Mean with a second correction pass (keeps precision for large values with small spread).
double mean_of(std::span<const double> v) {
  const double n = static_cast<double>(v.size());
  double m = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double corr = 0;
  for (double x : v) corr += x - m;
  return m + corr / n;
}

// Sample variance, corrected two-pass algorithm (Chan, Golub, LeVeque 1983).
double variance_of(std::span<const double> v, double mean) {
  double ss = 0, s = 0;
  for (double x : v) {
    const double d = x - mean;
    ss += d * d;
    s += d;
  }
  const double n = static_cast<double>(v.size());
  return std::max(0.0, (ss - s * s / n) / (n - 1));
}

double median_of(std::span<const double> v) {
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return n % 2 ? s[n / 2] : s[n / 2 - 1] + (s[n / 2] - s[n / 2 - 1]) / 2;
}

double two_sided_t(double t, double df) {
  boost::math::students_t dist(df);
  return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

// Number of arrangements of m a's and n b's for each value of U_a, as doubles
// (f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u): the largest element is an a or a b).
std::vector<double> u_distribution(size_t m, size_t n) {
  const size_t umax = m * n;
  std::vector<std::vector<double>> f(m + 1, std::vector<double>(umax + 1, 0.0));
  for (size_t i = 0; i <= m; ++i) f[i][0] = 1;  // j = 0: only U = 0
  for (size_t j = 1; j <= n; ++j) {
    for (size_t i = 1; i <= m; ++i) {
      for (size_t u = umax + 1; u-- > j;) f[i][u] += f[i - 1][u - j];
    }
  }
  return f[m];
}

}  // namespace

Summary summarize(std::span<const double> v) {
  Summary s{v.size(), kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (v.size() < kMinSamples) return s;
  s.mean = mean_of(v);
  s.median = median_of(v);
  s.stddev = std::sqrt(variance_of(v, s.mean));
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : kNaN;
  const double df = static_cast<double>(v.size() - 1);
  const double t = boost::math::quantile(boost::math::students_t(df), 0.975);
  const double half = t * s.stddev / std::sqrt(static_cast<double>(v.size()));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

double welch_t_test(std::span<const double> a, std::span<const double> b) {
  if (a.size() < kMinSamples || b.size() < kMinSamples) return kNaN;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double ma = mean_of(a), mb = mean_of(b);
  const double sa = variance_of(a, ma) / na, sb = variance_of(b, mb) / nb;
  if (sa + sb == 0) return kNaN;
  const double t = (mb - ma) / std::sqrt(sa + sb);
  const double df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
  if (!std::isfinite(t) || !std::isfinite(df)) return kNaN;
  return two_sided_t(t, df);
}

double mann_whitney_u_test(std::span<const double> a, std::span<const double> b) {
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return kNaN;
  struct Item {
    double x;
    bool from_a;
  };
  std::vector<Item> all;
  all.reserve(m + n);
  for (double x : a) all.push_back({x, true});
  for (double x : b) all.push_back({x, false});
  std::sort(all.begin(), all.end(), [](const Item& l, const Item& r) { return l.x < r.x; });
  // Mid-ranks; ties accumulate sum(t^3 - t).
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t k = i;
    while (k < all.size() && all[k].x == all[i].x) ++k;
    const double t = static_cast<double>(k - i);
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(k)) / 2;
    for (size_t q = i; q < k; ++q) {
      if (all[q].from_a) rank_sum_a += rank;
    }
    tie_term += t * t * t - t;
    i = k;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  const double u = rank_sum_a - dm * (dm + 1) / 2;
  if (tie_term == 0 && m * n <= kMannWhitneyExactMax) {
    const std::vector<double> f = u_distribution(m, n);
    const double total = std::accumulate(f.begin(), f.end(), 0.0);
    const auto ui = static_cast<size_t>(std::llround(u));
    double le = 0, ge = 0;
    for (size_t k = 0; k < f.size(); ++k) {
      if (k <= ui) le += f[k];
      if (k >= ui) ge += f[k];
    }
    return std::min(1.0, 2 * std::min(le, ge) / total);
  }
  const double big_n = dm + dn;
  const double var = dm * dn / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
  if (var <= 0) return 1.0;  // every value identical
  const double z = std::max(0.0, std::fabs(u - dm * dn / 2) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(boost::math::normal(), z)));
}

double mean(std::span<const double> v) { return v.empty() ? kNaN : mean_of(v); }

double median(std::span<const double> v) { return v.empty() ? kNaN : median_of(v); }

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same on every platform, unlike
// std::uniform_int_distribution.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) by multiply-shift (Lemire); the bias is below 2^-40 for our n.
  size_t below(size_t n) {
    return static_cast<size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

double resampled_mean(std::span<const double> v, SplitMix64& rng) {
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += v[rng.below(v.size())];
  return sum / static_cast<double>(v.size());
}

// Linear interpolation between order statistics (R's type 7).
double quantile_sorted(const std::vector<double>& s, double q) {
  const double h = (static_cast<double>(s.size()) - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

}  // namespace

Interval bootstrap_ratio_ci(std::span<const double> a, std::span<const double> b, double level,
                            int resamples, uint64_t seed) {
  if (a.size() < kMinSamples || b.size() < kMinSamples || resamples <= 0) return {};
  SplitMix64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double ma = resampled_mean(a, rng);
    const double mb = resampled_mean(b, rng);
    if (ma != 0) ratios.push_back(mb / ma);
  }
  if (ratios.empty()) return {};
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - level) / 2;
  return {quantile_sorted(ratios, tail), quantile_sorted(ratios, 1 - tail)};
}

size_t reps_needed(double cv, double min_effect, double alpha, double power) {
  if (!std::isfinite(cv) || !(min_effect > 0)) return 0;
  const boost::math::normal z;
  const double k = boost::math::quantile(z, 1 - alpha / 2) + boost::math::quantile(z, power);
  const double n = std::ceil(2 * k * k * cv * cv / (min_effect * min_effect));
  return std::max(kMinSamples, static_cast<size_t>(n));
}

Comparison compare(std::span<const double> a, std::span<const double> b) {
  Comparison c{kNaN, kNaN, kNaN, kNaN, {}};
  std::vector<std::string> warnings;
  const size_t n_min = std::min(a.size(), b.size());
  if (n_min < kMinSamples) {
    c.warning = fmt::format("n={} and n={}: fewer than {} samples, no aggregate", a.size(),
                            b.size(), kMinSamples);
    return c;
  }
  const double ma = mean_of(a), mb = mean_of(b);
  if (ma != 0) {
    c.ratio = mb / ma;
    c.rel_change = (mb - ma) / ma;
  } else {
    warnings.push_back("baseline mean is zero: no ratio");
  }
  c.welch_p = welch_t_test(a, b);
  c.mann_whitney_p = mann_whitney_u_test(a, b);
  if (n_min < kLowPowerSamples) {
    warnings.push_back(fmt::format("n={} and n={}: fewer than {} samples, low statistical power",
                                   a.size(), b.size(), kLowPowerSamples));
  }
  if (variance_of(a, ma) == 0 && variance_of(b, mb) == 0) {
    warnings.push_back("zero variance in both samples: t-test undefined");
  }
  for (size_t i = 0; i < warnings.size(); ++i) c.warning += (i ? "; " : "") + warnings[i];
  return c;
}

}  // namespace foliolab
