// Change points of one series (one value per session, oldest first): where its level moved.
//
// Timings: a deterministic mean-shift search in the style of Apache Otava (formerly DataStax
// Hunter; Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", ICPE 2023, doi:10.1145/3578244.3583719; apache/otava otava/analysis.py `split`
// and `merge`, whose significance tester is a two-sample t-test), with its e-divisive split
// statistic replaced by the t-test itself:
//   split: recursively cut a segment where the t-test between the two sides is strongest
//     (smallest p, then largest |t|), each side at least `min_segment` points, and keep the cut
//     when p <= 10 × max_p (Otava's first pass uses 10 × its p too: "weak" change points);
//   merge: retest every weak point against its neighbours, then repeatedly drop the one with
//     the largest p while it is above max_p, else the one with the smallest |magnitude| while
//     it is below min_magnitude, retesting the two neighbours after each drop;
//   then split again between the points kept, and merge, until nothing changes.
// A test's p is the largest of Student's (pooled) and Welch's, each on the two sides and with
// either side's most outlying point left out, so one session (a spike) never makes a change
// point. Each side of a test is the `window` points next to the cut (fewer up to the
// neighbouring change point or the series' end): a change point's statistics do not change
// once `window` sessions follow it; its place can still move to a neighbouring session when a
// later one tips a near tie (5 of 185 under 3 % noise and a 10 % step, change_points_test.cc).
// Measured there: on N(0,1) series, 0.5 % of 30-point and 2.65 % of 100-point series have any
// change point (the test fails above 2.5 % and 6 %); a 10 % step in 3 % noise, 15 sessions a
// side, is found within one session of its place in 96.8 % (fails below 95 %). Not found: a
// bump of fewer than about 10 sessions that returns to its level (no single cut of the
// 20-session windows separates it); two steps 5 sessions apart are.
//
// Counts whose every session's repetitions agree within the catalog's threshold are exact:
// every step between two consecutive sessions beyond the threshold is a change point.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "model/metric_kind.h"

namespace foliolab {

struct ChangePointOptions {
  double max_p = 0.001;         // Welch's two-sided p of a kept change point (Otava's default)
  size_t min_segment = 3;       // points on each side of a cut at least
  double min_magnitude = 0.02;  // |after - before| / |before| of a kept change point at least
  size_t window = 20;           // points on each side a test uses at most
};

enum class ChangeKind { kCountStep, kMeanShift };
std::string_view change_kind_name(ChangeKind k);  // "count step", "mean shift"

struct ChangePoint {
  size_t index = 0;  // the first point after the change; index - 1 is the last before it
  ChangeKind kind = ChangeKind::kMeanShift;
  // Count steps: the two sessions' values; mean shifts: the means of the points each side
  // of the test (n_before and n_after of them).
  double before = kNoValue, after = kNoValue;
  size_t n_before = 0, n_after = 0;
  double magnitude = kNoValue;        // (after - before) / |before|; ±infinity from a zero before
  double t = kNoValue, p = kNoValue;  // Welch's t and p (mean shifts only)
};

std::vector<ChangePoint> mean_shift_change_points(std::span<const double> series,
                                                  const ChangePointOptions& options = {});
// Every step between consecutive values by more than `same` of the larger |value|.
std::vector<ChangePoint> count_change_points(std::span<const double> series,
                                             const CountThreshold& same);

}  // namespace foliolab
