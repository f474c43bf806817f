// A distribution metric: the histogram of one repetition's many values of one quantity (a
// kprobe's entry-to-return latency, a custom program's per-fault latency lines), shown as
// quantiles and judged by its per-rep quantiles (docs/comparisons.md#distributions).
//
// Shape (the same in run.json, the guest's `dist` record and the index's `distributions` table):
//   unit             "ns", "us", "" (free text, at most 16 bytes)
//   count            values seen, >= 1; the sum of the buckets' counts
//   sum, min, max    of the values (exact: min and max clamp every quantile)
//   buckets          [lo, hi) with count >= 1 each, lo < hi (lo == hi: exactly the value lo),
//                    ascending and not overlapping; at most kMaxDistributionBuckets
// Buckets, not raw values, because a kprobe on handle_mm_fault fires 16k times a rep and a
// run.json keeps every rep. Whoever makes the histogram picks its resolution: the kernel's hist
// triggers give exact values or log2 buckets, and the host's own binning (DistributionBuilder:
// regex lines) keeps up to 1024 distinct values exactly and bins more log-linearly, 32 buckets
// an octave: a bucket is at most 1/32 = 3.1 % of its lower bound wide, so a quantile is within
// 3.1 % of the true one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foliolab {

inline constexpr size_t kMaxDistributionBuckets = 4096;
inline constexpr size_t kMaxDistributionUnit = 16;

struct DistributionBucket {
  double lo = 0, hi = 0;
  int64_t count = 0;
  bool operator==(const DistributionBucket&) const = default;
};

struct Distribution {
  std::string unit;
  int64_t count = 0;
  double sum = 0, min = 0, max = 0;
  std::vector<DistributionBucket> buckets;
  bool operator==(const Distribution&) const = default;
  // The value at rank ceil(q * count) (nearest rank, q in [0, 1]), placed within its bucket as
  // if the bucket's values were spread evenly, clamped to [min, max]; q = 1 is max.
  double quantile(double q) const;
  double mean() const { return count > 0 ? sum / static_cast<double>(count) : 0; }
};

// "" when `d` has the shape above, else what breaks it (for a guest's record or a run.json).
std::string distribution_problem(const Distribution& d);

// The per-rep scalars a distribution metric `<name>` is read and judged by: `<name>.p50`,
// `.p90`, `.p99`, `.max` (judged together: docs/comparisons.md), and `.count` (a count).
struct DistributionQuantile {
  std::string_view suffix;  // "p50"
  double q;                 // 0.5
};
inline constexpr std::array<DistributionQuantile, 4> kDistributionQuantiles = {
    {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"max", 1.0}}};
inline constexpr std::string_view kDistributionCountSuffix = "count";

// "<name>.p99" -> {"<name>", the p99 entry}; nullopt for a name without a quantile suffix.
struct QuantileName {
  std::string_view base;
  DistributionQuantile quantile;
};
std::optional<QuantileName> parse_quantile_name(std::string_view metric);
// The value of "<name>.p50" (any quantile suffix) or "<name>.count" from `dists`; nullopt when
// the name has no such suffix or no distribution <name>.
std::optional<double> distribution_value(const std::map<std::string, Distribution>& dists,
                                         std::string_view metric);
// The derived names of a distribution: <name>.p50, .p90, .p99, .max, .count.
std::vector<std::string> distribution_value_names(const std::string& name);

// Collects values: exactly (a bucket [v, v] a distinct value) while there are at most 1024
// distinct values, else into log-linear buckets (32 an octave; zero in a bucket of its own,
// negative values mirrored).
class DistributionBuilder {
 public:
  explicit DistributionBuilder(std::string unit = "") { d_.unit = std::move(unit); }
  void add(double value);  // finite values only (the caller checks)
  Distribution take();     // the distribution of every value added (count 0 when none)

 private:
  Distribution d_;
  std::map<int64_t, int64_t> bins_;  // bin index -> count
  std::map<double, int64_t> exact_;  // value -> count, until it holds more than 1024 values
};

}  // namespace foliolab
