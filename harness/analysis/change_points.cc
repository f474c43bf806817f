#include "analysis/change_points.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace foliolab {

namespace {

constexpr double kWeakFactor = 10;  // the split keeps cuts up to 10 × max_p (Otava's first pass)

double magnitude_of(double before, double after) {
  if (before != 0) return (after - before) / std::fabs(before);
  if (after == 0) return 0;
  return std::copysign(std::numeric_limits<double>::infinity(), after);
}

double p_or_one(double p) { return std::isnan(p) ? 1 : p; }
double p_or_one(const ChangePoint& c) { return p_or_one(c.p); }

// Count, mean and sum of squared deviations of a side, two-pass, optionally leaving one out.
struct SplitSide {
  double n = 0, mean = 0, ss = 0;
};
SplitSide side_of(std::span<const double> v, size_t skip = SIZE_MAX) {
  SplitSide s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i != skip) s.mean += v[i], s.n += 1;
  }
  s.mean /= s.n;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i != skip) s.ss += (v[i] - s.mean) * (v[i] - s.mean);
  }
  return s;
}

// The point of a side farthest from the side's median (a spike, if it holds one).
size_t outlier(std::span<const double> v) {
  std::vector<double> sorted(v.begin(), v.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double mid = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  size_t far = 0;
  for (size_t i = 1; i < n; ++i) {
    if (std::fabs(v[i] - mid) > std::fabs(v[far] - mid)) far = i;
  }
  return far;
}

double two_sided(double t, double df) {
  if (std::isinf(t)) return 0;
  return std::min(1.0, 2 * boost::math::cdf(
                               boost::math::complement(boost::math::students_t(df), std::fabs(t))));
}

struct TTest {
  double t = kNoValue, p = kNoValue;
};

// The t of b's mean minus a's with the pooled variance (Student's, df = m + n - 2, as Otava's
// TTestSignificanceTester: scipy's ttest_ind_from_stats with equal variances), and as p the
// larger of Student's and Welch's two-sided p. Student's alone is exact for one variance but
// lets a short side of mixed values pass (20 quiet sessions, then 100, 130, 130: p 2e-5);
// Welch's alone is liberal with a side of 3 (4 % of 30-point N(0,1) series flagged, most at
// the ends, against about 1 % with both). Both sides constant: p 1 for equal means, else 0.
TTest t_test(const SplitSide& a, const SplitSide& b) {
  if (a.n < 2 || b.n < 2) return {};
  const double df = a.n + b.n - 2, diff = b.mean - a.mean;
  const double se = std::sqrt((a.ss + b.ss) / df * (1 / a.n + 1 / b.n));
  if (se == 0) return {diff == 0 ? 0 : std::copysign(INFINITY, diff), diff == 0 ? 1.0 : 0.0};
  const double t = diff / se;
  const double va = a.ss / (a.n - 1) / a.n, vb = b.ss / (b.n - 1) / b.n;
  const double welch_df = (va + vb) * (va + vb) / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
  if (!std::isfinite(t) || !std::isfinite(welch_df)) return {};
  return {t, std::max(two_sided(t, df), two_sided(diff / std::sqrt(va + vb), welch_df))};
}

// The test of a cut at k with `w` points a side at most, within [lo, hi). Its p is the largest
// of the test of the two sides and of the tests with either side's most outlying point left
// out: one session alone cannot make a change point.
ChangePoint test_window(std::span<const double> x, size_t lo, size_t k, size_t hi, size_t w) {
  const size_t from = k - std::min(w, k - lo), to = k + std::min(w, hi - k);
  const std::span<const double> left = x.subspan(from, k - from), right = x.subspan(k, to - k);
  const SplitSide l = side_of(left), r = side_of(right);
  const TTest all = t_test(l, r);
  const double p = std::max({p_or_one(all.p), p_or_one(t_test(side_of(left, outlier(left)), r).p),
                             p_or_one(t_test(l, side_of(right, outlier(right))).p)});
  ChangePoint c;
  c.index = k;
  c.kind = ChangeKind::kMeanShift;
  c.before = l.mean;
  c.after = r.mean;
  c.n_before = left.size();
  c.n_after = right.size();
  c.magnitude = magnitude_of(c.before, c.after);
  c.t = all.t;
  c.p = p;
  return c;
}

// Smaller p first, then larger |t|; the earlier on a full tie (callers scan upwards).
bool stronger(const ChangePoint& a, const ChangePoint& b) {
  if (p_or_one(a) != p_or_one(b)) return p_or_one(a) < p_or_one(b);
  return std::fabs(a.t) > std::fabs(b.t);
}

ChangePoint test_cut(std::span<const double> x, size_t lo, size_t k, size_t hi,
                     const ChangePointOptions& o) {
  return test_window(x, lo, k, hi, std::max<size_t>(o.window, kMinSamples));
}

void split(std::span<const double> x, size_t lo, size_t hi, const ChangePointOptions& o,
           std::vector<ChangePoint>* out) {
  const size_t m = std::max<size_t>(o.min_segment, kMinSamples);
  if (hi - lo < 2 * m) return;
  ChangePoint best;
  for (size_t k = lo + m; k + m <= hi; ++k) {
    const ChangePoint c = test_cut(x, lo, k, hi, o);
    if (k == lo + m || stronger(c, best)) best = c;
  }
  if (p_or_one(best) > kWeakFactor * o.max_p) return;
  split(x, lo, best.index, o, out);
  out->push_back(best);
  split(x, best.index, hi, o, out);
}

void retest(std::span<const double> x, std::vector<ChangePoint>& cps, size_t i,
            const ChangePointOptions& o) {
  const size_t lo = i == 0 ? 0 : cps[i - 1].index;
  const size_t hi = i + 1 == cps.size() ? x.size() : cps[i + 1].index;
  cps[i] = test_cut(x, lo, cps[i].index, hi, o);
}

void merge(std::span<const double> x, std::vector<ChangePoint>& cps, const ChangePointOptions& o) {
  for (size_t i = 0; i < cps.size(); ++i) retest(x, cps, i, o);
  while (!cps.empty()) {
    auto weakest = std::max_element(cps.begin(), cps.end(), [](const auto& a, const auto& b) {
      return p_or_one(a) < p_or_one(b);
    });
    if (p_or_one(*weakest) <= o.max_p) {
      weakest = std::min_element(cps.begin(), cps.end(), [](const auto& a, const auto& b) {
        return std::fabs(a.magnitude) < std::fabs(b.magnitude);
      });
      if (std::fabs(weakest->magnitude) >= o.min_magnitude) return;
    }
    const size_t i = static_cast<size_t>(weakest - cps.begin());
    cps.erase(weakest);
    if (i > 0) retest(x, cps, i - 1, o);
    if (i < cps.size()) retest(x, cps, i, o);
  }
}

}  // namespace

std::string_view change_kind_name(ChangeKind k) {
  return k == ChangeKind::kCountStep ? "count step" : "mean shift";
}

std::vector<ChangePoint> mean_shift_change_points(std::span<const double> series,
                                                  const ChangePointOptions& options) {
  std::vector<ChangePoint> cps;
  // Split and merge, then split again between the points kept, until nothing changes: a first
  // cut in the middle of a short segment (two close steps) is merged away and the segments
  // either side of what is left are searched anew.
  for (size_t round = 0; round <= series.size(); ++round) {
    std::vector<ChangePoint> next;
    size_t lo = 0;
    for (const ChangePoint& c : cps) {
      split(series, lo, c.index, options, &next);
      next.push_back(c);
      lo = c.index;
    }
    split(series, lo, series.size(), options, &next);  // in index order
    merge(series, next, options);
    const bool same = std::equal(next.begin(), next.end(), cps.begin(), cps.end(),
                                 [](const auto& a, const auto& b) { return a.index == b.index; });
    cps = std::move(next);
    if (same) break;
  }
  return cps;
}

std::vector<ChangePoint> count_change_points(std::span<const double> series,
                                             const CountThreshold& same) {
  std::vector<ChangePoint> cps;
  for (size_t k = 1; k < series.size(); ++k) {
    const double a = series[k - 1], b = series[k];
    if (std::fabs(b - a) <= same.of(std::max(std::fabs(a), std::fabs(b)))) continue;
    ChangePoint c;
    c.index = k;
    c.kind = ChangeKind::kCountStep;
    c.before = a;
    c.after = b;
    c.n_before = c.n_after = 1;
    c.magnitude = magnitude_of(a, b);
    cps.push_back(c);
  }
  return cps;
}

}  // namespace foliolab
