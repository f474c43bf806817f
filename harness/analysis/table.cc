#include "analysis/table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/stats.h"

namespace foliolab {
namespace {

// Display width: UTF-8 code points (the table uses "±" and "×").
size_t width(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

std::string pad(const std::string& s, size_t w) { return s + std::string(w - width(s), ' '); }

// Decimals that show the stddev to two significant digits, or the mean to three when the stddev
// is zero or unknown.
int decimals_for(const Summary& s) {
  double anchor = 0;
  int digits = 0;
  if (std::isfinite(s.stddev) && s.stddev > 0) {
    anchor = s.stddev;
    digits = 1;
  } else if (std::isfinite(s.mean) && s.mean != 0) {
    anchor = std::fabs(s.mean);
    digits = 2;
  } else {
    return 0;
  }
  return std::clamp(digits - static_cast<int>(std::floor(std::log10(anchor))), 0, 6);
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string format_number(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const size_t dot = digits.find('.');
  const size_t int_len = dot == std::string::npos ? digits.size() : dot;
  std::string out;
  for (size_t i = 0; i < int_len; ++i) {
    if (i > 0 && (int_len - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  out += digits.substr(int_len);
  const bool negative = std::signbit(value) && out.find_first_not_of("0.,") != std::string::npos;
  return negative ? "-" + out : out;
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return "n/a";
  const double a = std::fabs(r);
  if (a >= 100) return fmt::format("×{:.0f}", r);
  if (a >= 10) return fmt::format("×{:.1f}", r);
  if (a >= 1) return fmt::format("×{:.2f}", r);
  if (a >= 0.001 || a == 0) return fmt::format("×{:.3f}", r);
  return fmt::format("×{:.2e}", r);
}

std::string format_p(double p) {
  if (!std::isfinite(p)) return "p=n/a";
  if (p < 0.001) return "p<0.001";
  return fmt::format("p={:.3f}", p);
}

std::string format_table(const std::string& title, std::span<const Variant> variants,
                         std::span<const std::string> metrics, const TableOptions& options) {
  static const std::vector<double> kEmpty;
  auto samples = [&](const Variant& v, const std::string& m) -> const std::vector<double>& {
    auto it = v.samples.find(m);
    return it == v.samples.end() ? kEmpty : it->second;
  };
  const std::string base_label = variants.empty() ? "" : variants[0].label;
  const std::string vs = "vs " + base_label;

  // Cells, row 0 = header.
  std::vector<std::vector<std::string>> rows(variants.size() + 1);
  rows[0] = {"variant", "n"};
  for (const std::string& m : metrics) {
    rows[0].push_back(m);
    if (variants.size() > 1) rows[0].push_back(vs);
  }
  std::vector<std::string> warnings;
  std::vector<std::vector<Summary>> sums(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    for (const std::string& m : metrics) sums[v].push_back(summarize(samples(variants[v], m)));
  }
  std::vector<int> decimals(metrics.size(), 0);
  for (size_t k = 0; k < metrics.size(); ++k) {
    for (size_t v = 0; v < variants.size(); ++v) {
      decimals[k] = std::max(decimals[k], decimals_for(sums[v][k]));
    }
  }
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& var = variants[v];
    auto& row = rows[v + 1];
    size_t n_lo = SIZE_MAX, n_hi = 0;
    std::vector<std::string> no_aggregate, low_power;
    for (size_t k = 0; k < metrics.size(); ++k) {
      const Summary& s = sums[v][k];
      n_lo = std::min(n_lo, s.n);
      n_hi = std::max(n_hi, s.n);
      if (s.n < kMinSamples) {
        no_aggregate.push_back(metrics[k]);
      } else if (s.n < kLowPowerSamples) {
        low_power.push_back(metrics[k]);
      }
    }
    row.push_back(var.label);
    row.push_back(metrics.empty() ? "0"
                  : n_lo == n_hi  ? std::to_string(n_lo)
                                  : fmt::format("{}-{}", n_lo, n_hi));
    for (size_t k = 0; k < metrics.size(); ++k) {
      const Summary& s = sums[v][k];
      row.push_back(s.n < kMinSamples ? "-"
                                      : format_number(s.mean, decimals[k]) + " ± " +
                                            format_number(s.stddev, decimals[k]));
      if (variants.size() < 2) continue;
      if (v == 0) {
        row.push_back("");
        continue;
      }
      const Comparison c = compare(samples(variants[0], metrics[k]), samples(var, metrics[k]));
      std::string cell = format_ratio(c.ratio);
      if (options.show_p && std::isfinite(c.ratio)) cell += " (" + format_p(c.welch_p) + ")";
      row.push_back(cell);
      const Summary& b = sums[0][k];
      if (b.n >= kMinSamples && s.n >= kMinSamples && b.stddev == 0 && s.stddev == 0) {
        warnings.push_back(fmt::format("{} vs {}, {}: zero variance in both, no p-value",
                                       var.label, base_label, metrics[k]));
      } else if (b.n >= kMinSamples && s.n >= kMinSamples && b.mean == 0) {
        warnings.push_back(fmt::format("{}, {}: baseline mean is zero, no ratio", base_label,
                                       metrics[k]));
      }
    }
    if (!no_aggregate.empty()) {
      warnings.push_back(fmt::format("{}: fewer than {} samples for {}: no aggregate", var.label,
                                     kMinSamples, join_names(no_aggregate)));
    }
    if (!low_power.empty()) {
      warnings.push_back(fmt::format("{}: fewer than {} samples for {}: low statistical power",
                                     var.label, kLowPowerSamples, join_names(low_power)));
    }
  }
  if (options.emulated) {
    warnings.push_back("timings are TCG emulation timings; compare ratios only");
  }

  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  }
  std::string out = title.empty() ? "" : title + "\n";
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += c + 1 == row.size() ? row[c] : pad(row[c], widths[c]) + "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  for (const std::string& w : warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace foliolab
