#include "report/number_format.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace foliolab {

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

std::string format_compact(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::fabs(v);
  if (a < 9999.5) {
    if (a == std::floor(a)) return fmt::format("{:.0f}", v);
    return fmt::format("{:.{}f}", v, decimals_for(v, 4));
  }
  static constexpr const char* kSuffix[] = {"k", "M", "G", "T"};
  double scaled = v;
  size_t i = 0;
  for (scaled /= 1000; std::fabs(scaled) >= 999.5 && i + 1 < std::size(kSuffix); ++i) {
    scaled /= 1000;
  }
  return fmt::format("{:.{}f}{}", scaled, decimals_for(scaled, 3), kSuffix[i]);
}

std::string format_change(double f) {
  if (!std::isfinite(f)) return "n/a";
  if (f == 0) return "0 %";
  const double pct = f * 100;
  const int decimals = std::fabs(pct) >= 100 ? 0 : std::fabs(pct) >= 0.1 ? 1 : 3;
  return fmt::format("{}{:.{}f} %", pct > 0 ? "+" : "", pct, decimals);
}

std::string format_percent(double f) {
  return std::isfinite(f) ? fmt::format("{:.1f} %", f * 100) : "n/a";
}

std::string format_value(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == std::floor(x) && std::fabs(x) < 1e15) return fmt::format("{:.0f}", x);
  if (std::fabs(x) >= 1e4) return fmt::format("{:.1f}", x);
  return fmt::format("{:.4g}", x);
}

std::string format_tolerance(double f) { return format_value(f * 100) + "%"; }

std::string format_percent_g(double f) { return fmt::format("{:g} %", f * 100); }

std::string format_p_cell(double p) {
  if (!std::isfinite(p)) return "n/a";
  return p < 0.001 ? "<.001" : fmt::format("{:.3f}", p);
}

std::string format_full(double x) { return std::isfinite(x) ? fmt::format("{}", x) : ""; }

int decimals_for(double x, int digits) {
  if (!std::isfinite(x) || x == 0) return 0;
  return std::clamp(digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(x)))), 0, 6);
}

}  // namespace foliolab
