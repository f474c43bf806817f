#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>
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
// (f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u): the largest element is an a or a b). Cached per
// thread: the simulations in the tests and a report's many metrics ask for the same few sizes.
const std::vector<double>& u_distribution(size_t m, size_t n) {
  thread_local std::map<std::pair<size_t, size_t>, std::vector<double>> cache;
  auto [it, added] = cache.try_emplace({m, n});
  if (!added) return it->second;
  const size_t umax = m * n;
  std::vector<std::vector<double>> f(m + 1, std::vector<double>(umax + 1, 0.0));
  for (size_t i = 0; i <= m; ++i) f[i][0] = 1;  // j = 0: only U = 0
  for (size_t j = 1; j <= n; ++j) {
    for (size_t i = 1; i <= m; ++i) {
      for (size_t u = umax + 1; u-- > j;) f[i][u] += f[i - 1][u - j];
    }
  }
  it->second = std::move(f[m]);
  return it->second;
}

// Two-sided exact p of U_a = u without ties (the distribution is symmetric about mn/2).
double exact_p_no_ties(size_t m, size_t n, double u) {
  const std::vector<double>& f = u_distribution(m, n);
  const double total = std::accumulate(f.begin(), f.end(), 0.0);
  const auto ui = static_cast<size_t>(std::llround(u));
  double le = 0, ge = 0;
  for (size_t k = 0; k < f.size(); ++k) {
    if (k <= ui) le += f[k];
    if (k >= ui) ge += f[k];
  }
  return std::min(1.0, 2 * std::min(le, ge) / total);
}

// Two-sided exact p conditional on the ties: every way of choosing which m of the pooled
// values are a's is equally likely; g[c][s] counts the choices of c items among those seen
// whose doubled mid-ranks sum to s. p = P(|S - E S| >= |s_obs - E S|), E S = m (N + 1).
double exact_p_ties(const std::vector<int>& doubled_ranks, size_t m, int observed) {
  const int smax = std::accumulate(doubled_ranks.begin(), doubled_ranks.end(), 0);
  std::vector<std::vector<double>> g(m + 1, std::vector<double>(smax + 1, 0.0));
  g[0][0] = 1;
  for (int r : doubled_ranks) {
    for (size_t c = m; c >= 1; --c) {
      for (int s = smax; s >= r; --s) g[c][s] += g[c - 1][s - r];
    }
  }
  const int center = static_cast<int>(m * (doubled_ranks.size() + 1));
  const int dist = std::abs(observed - center);
  double tail = 0, total = 0;
  for (int s = 0; s <= smax; ++s) {
    total += g[m][s];
    if (std::abs(s - center) >= dist) tail += g[m][s];
  }
  return std::min(1.0, tail / total);
}

struct Ranked {
  std::vector<int> doubled;  // doubled mid-rank of each pooled value, in sorted order
  int doubled_sum_a = 0;
  double tie_term = 0;  // sum(t^3 - t) over tie groups
};

Ranked rank_pooled(std::span<const double> a, std::span<const double> b) {
  struct Item {
    double x;
    bool from_a;
  };
  std::vector<Item> all;
  all.reserve(a.size() + b.size());
  for (double x : a) all.push_back({x, true});
  for (double x : b) all.push_back({x, false});
  std::sort(all.begin(), all.end(), [](const Item& l, const Item& r) { return l.x < r.x; });
  Ranked out;
  for (size_t i = 0; i < all.size();) {
    size_t k = i;
    while (k < all.size() && all[k].x == all[i].x) ++k;
    const double t = static_cast<double>(k - i);
    const int doubled = static_cast<int>(i + 1 + k);  // 2 × (i+1 + k) / 2
    for (size_t q = i; q < k; ++q) {
      out.doubled.push_back(doubled);
      if (all[q].from_a) out.doubled_sum_a += doubled;
    }
    out.tie_term += t * t * t - t;
    i = k;
  }
  return out;
}

double normal_p(double u, double dm, double dn, double tie_term) {
  const double big_n = dm + dn;
  const double var = dm * dn / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
  if (var <= 0) return 1.0;  // every value identical
  const double z = std::max(0.0, std::fabs(u - dm * dn / 2) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(boost::math::normal(), z)));
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

RankTest rank_test(std::span<const double> a, std::span<const double> b) {
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return {};
  const Ranked r = rank_pooled(a, b);
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  const double u = r.doubled_sum_a / 2.0 - dm * (dm + 1) / 2;
  RankTest out;
  out.shift = 0.5 - u / (dm * dn);  // U_b = mn - U_a
  if (r.tie_term == 0 && m * n <= kMannWhitneyExactMax) {
    out.p = exact_p_no_ties(m, n, u);
  } else if (r.tie_term > 0 && m + n <= kMannWhitneyTiesExactMax) {
    out.p = exact_p_ties(r.doubled, m, r.doubled_sum_a);
  } else {
    out.p = normal_p(u, dm, dn, r.tie_term);
  }
  return out;
}

double mann_whitney_u_test(std::span<const double> a, std::span<const double> b) {
  return rank_test(a, b).p;
}

double min_rank_p(size_t m, size_t n) {
  if (m == 0 || n == 0) return 1;
  double c = 1;  // C(m+n, m)
  for (size_t i = 1; i <= m; ++i) c = c * static_cast<double>(n + i) / static_cast<double>(i);
  return std::min(1.0, 2 / c);
}

double mean(std::span<const double> v) { return v.empty() ? kNaN : mean_of(v); }

double median(std::span<const double> v) { return v.empty() ? kNaN : median_of(v); }

namespace {

// Welch's interval of mean(y) - mean(x); estimate only when both variances are zero.
Interval welch_interval(std::span<const double> x, std::span<const double> y, double level) {
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double mx = mean_of(x), my = mean_of(y);
  const double sx = variance_of(x, mx) / nx, sy = variance_of(y, my) / ny;
  Interval out{my - mx, my - mx, my - mx, false};
  if (sx + sy == 0) return out;
  const double df = (sx + sy) * (sx + sy) / (sx * sx / (nx - 1) + sy * sy / (ny - 1));
  const double t = boost::math::quantile(boost::math::students_t(df), 1 - (1 - level) / 2);
  const double half = t * std::sqrt(sx + sy);
  out.low = out.estimate - half;
  out.high = out.estimate + half;
  return out;
}

bool all_positive(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

bool all_nonnegative(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x >= 0; });
}

}  // namespace

Interval difference_interval(std::span<const double> a, std::span<const double> b, double level) {
  if (a.size() < kMinSamples || b.size() < kMinSamples) return {};
  return welch_interval(a, b, level);
}

Interval ratio_of_means_interval(std::span<const double> a, std::span<const double> b,
                                 double level) {
  if (a.size() < kMinSamples || b.size() < kMinSamples) return {};
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double ma = mean_of(a), mb = mean_of(b);
  if (!(ma > kNearZeroMean * std::max(ma, mb)) || !(mb > kNearZeroMean * std::max(ma, mb))) {
    return {};
  }
  // The delta method: var(log m) ~ var(m) / m^2, Welch-Satterthwaite df of the two terms.
  const double va = variance_of(a, ma) / (na * ma * ma), vb = variance_of(b, mb) / (nb * mb * mb);
  const double est = std::log(mb / ma);
  Interval out{std::expm1(est), std::expm1(est), std::expm1(est), true};
  if (va + vb == 0) return out;
  const double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  const double t = boost::math::quantile(boost::math::students_t(df), 1 - (1 - level) / 2);
  const double half = t * std::sqrt(va + vb);
  out.low = std::expm1(est - half);
  out.high = std::expm1(est + half);
  return out;
}

Interval relative_change_interval(std::span<const double> a, std::span<const double> b,
                                  double level) {
  if (a.size() < kMinSamples || b.size() < kMinSamples) return {};
  if (all_positive(a) && all_positive(b)) {
    std::vector<double> la, lb;
    for (double x : a) la.push_back(std::log(x));
    for (double x : b) lb.push_back(std::log(x));
    const Interval d = welch_interval(la, lb, level);
    return {std::expm1(d.estimate), std::expm1(d.low), std::expm1(d.high), true};
  }
  // A positive quantity with zeros: the ratio of the means, never below -100 %.
  if (all_nonnegative(a) && all_nonnegative(b)) return ratio_of_means_interval(a, b, level);
  const double ma = mean_of(a);
  if (ma == 0) return {};
  const Interval d = welch_interval(a, b, level);
  // mean(b) / mean(a) - 1 = (mean(b) - mean(a)) / mean(a): a negative mean(a) swaps the ends.
  const double lo = d.low / ma, hi = d.high / ma;
  return {d.estimate / ma, std::min(lo, hi), std::max(lo, hi), false};
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
