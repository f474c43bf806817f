// Test helper: seeded, deterministic deviates for the statistics simulations. std::mt19937_64's
// output is fixed by the standard; the normal deviates come from our own Box-Muller because
// std::normal_distribution differs between standard libraries.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace foliolab {

class SeededNormal {
 public:
  explicit SeededNormal(uint64_t seed) : rng_(seed) {}
  double uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform()); }

 private:
  std::mt19937_64 rng_;
};

}  // namespace foliolab
