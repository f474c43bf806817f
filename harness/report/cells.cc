#include "report/cells.h"

#include <fmt/format.h>

#include <cmath>

#include "report/number_format.h"

namespace foliolab {
namespace {

// "n=3/3: p 0.10 cannot reach 0.05; n>=5 (repeat: {max: 5}) would resolve 2 % at CV 1.1 %",
// or that repetition within kMaxAdaptiveReps cannot.
std::string underpowered_note(const Delta& d) {
  const std::string n = fmt::format("n={}/{}", d.n_base, d.n_cand);
  const std::string p =
      d.min_p > kAlpha ? fmt::format("{}: p {} cannot reach {}", n, format_p_cell(d.min_p), kAlpha)
                       : fmt::format("{}: p {}", n, format_p_cell(d.mann_whitney_p));
  if (!(d.min_effect > 0)) return p + "; the count varies within each side";
  const std::string what =
      fmt::format("{} at CV {}", format_percent_g(d.min_effect), format_percent(d.cv));
  if (d.reps_needed > kMaxAdaptiveReps) {
    return fmt::format("{}; {} reps per side cannot resolve {}", p, kMaxAdaptiveReps, what);
  }
  return fmt::format("{}; n>={} (repeat: {{max: {}}}) would resolve {}", p, d.reps_needed,
                     d.reps_needed, what);
}

// A difference with its sign: "+0.004", "-1,024".
std::string signed_compact(double x) { return (x > 0 ? "+" : "") + format_compact(x); }

}  // namespace

std::string mean_ci_cell(const SampleStats& s) {
  if (!std::isfinite(s.ci_low)) return "n/a";
  return format_compact(s.ci_low) + " … " + format_compact(s.ci_high);
}

std::string p_cell(const Delta& d, double p) {
  return d.basis == VerdictBasis::kExact ? "exact" : format_p_cell(p);
}

std::string metric_label(const MetricRow& row) { return row.metric + (row.emulated ? "†" : ""); }

std::string stats_mean_sd(const SampleStats& s) {
  if (s.n < kMinSamples) return s.n == 1 ? format_compact(s.values[0]) + " (n=1)" : "-";
  const int decimals =
      std::isfinite(s.sd) && s.sd > 0 ? decimals_for(s.sd, 2) : decimals_for(s.mean, 4);
  return format_number(s.mean, decimals) + " ± " + format_number(s.sd, decimals);
}

std::string delta_note(const Delta& d) {
  switch (d.note) {
    case DeltaNote::kNone:
      break;
    case DeltaNote::kFewSamples:
      if (d.per_boot) {
        return fmt::format(
            "n={}/{} boots: a fragmented guest's counts are compared boot against "
            "boot; 4 sessions a side give a verdict",
            d.n_base, d.n_cand);
      }
      return fmt::format("n={}/{}: no aggregate from fewer than {} samples", d.n_base, d.n_cand,
                         kMinSamples);
    case DeltaNote::kZeroBaseline:
      return "baseline mean is zero: no ratio";
    case DeltaNote::kUnderpowered:
      return underpowered_note(d);
    case DeltaNote::kGuestsBeside:
      return "other guests ran beside (run -j): timing not judged; -j 1, `exclusive: true` or "
             "machine.timing: icount";
  }
  return "";
}

std::string ci_text(const Delta& d) {
  if (!std::isfinite(d.ci_low) && std::isfinite(d.diff_low)) {
    // A side's mean is 0 or near it: no ratio, the difference of means in the metric's unit.
    return fmt::format("Δ {} … {}", signed_compact(d.diff_low), signed_compact(d.diff_high));
  }
  if (!std::isfinite(d.ci_low)) return "n/a";
  return fmt::format("{} … {}", format_change(d.ci_low), format_change(d.ci_high));
}

std::string delta_text(const Delta& d) {
  if (!std::isfinite(d.rel_change)) return "n/a";
  return format_change(d.rel_change) + " [" + ci_text(d) + "]";
}

}  // namespace foliolab
