// Plain-text comparison table: one row per variant, per metric "mean ± stddev" and, for every
// variant after the first (the baseline), the ratio of means to the baseline with Welch's p-value.
// Warnings about unreliable numbers follow the table, one per line.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

namespace foliolab {

struct Variant {
  std::string label;
  std::map<std::string, std::vector<double>> samples;  // metric -> one value per repetition
};

struct TableOptions {
  bool emulated = false;  // TCG run: timings are emulation timings
  bool show_p = true;     // append "(p=...)" to ratios
};

// Example (two metrics, baseline first):
//   variant  n  faults_per_sec    vs base            sys_s          vs base
//   base     5  83,516 ± 1,234                       3.100 ± 0.020
//   patched  5  677,900 ± 9,100   ×8.12 (p<0.001)    0.400 ± 0.010  ×0.129 (p<0.001)
std::string format_table(const std::string& title, std::span<const Variant> variants,
                         std::span<const std::string> metrics, const TableOptions& options);

// Helpers, exposed for tests.
std::string format_number(double value, int decimals);  // thousands separators, "n/a" for NaN
std::string format_ratio(double ratio);                 // "×8.12", "n/a"
std::string format_p(double p);                         // "p=0.003", "p<0.001", "p=n/a"

}  // namespace foliolab
