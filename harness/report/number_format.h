// Number formatting shared by the renderers.
#pragma once

#include <string>

namespace foliolab {

std::string format_number(double value, int decimals);  // thousands separators, "n/a" for NaN
std::string format_ratio(double ratio);                 // "×8.12", "n/a"
std::string format_p(double p);                         // "p=0.003", "p<0.001", "p=n/a"
// At most 4 significant digits, k/M/G/T beyond 9,999: "1025", "16.4k", "3.142", "0.0123".
std::string format_compact(double value);
// A relative change: "+1.2 %", "-93.7 %", "0 %", "n/a".
std::string format_change(double fraction);
// A fraction as a percentage with one decimal: "12.3 %" (a CV), "n/a".
std::string format_percent(double fraction);
// A value of an expectation: integers without decimals, else 4 significant digits ("1024",
// "0.0625", "16.02", "123456.8"; "nan", "inf").
std::string format_value(double x);
// A relative tolerance as expectations print it: 0.1 -> "10%".
std::string format_tolerance(double fraction);
// A fraction as a percentage in the shortest form: "2 %", "0.5 %".
std::string format_percent_g(double fraction);
// A p-value as a table cell: "0.034", "<.001", "n/a".
std::string format_p_cell(double p);
// Shortest round-trip text for CSV: "0.1", "16384"; "" for NaN.
std::string format_full(double value);
// Decimals that show `x` to `digits` significant digits (0..6).
int decimals_for(double x, int digits);

}  // namespace foliolab
