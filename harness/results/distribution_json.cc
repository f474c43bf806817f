#include "results/distribution_json.h"

#include <stdexcept>

namespace foliolab {

using json = nlohmann::json;

json buckets_to_json(const Distribution& d) {
  json buckets = json::array();
  for (const DistributionBucket& b : d.buckets)
    buckets.push_back(json::array({b.lo, b.hi, b.count}));
  return buckets;
}

json distribution_to_json(const Distribution& d) {
  return {{"unit", d.unit}, {"count", d.count}, {"sum", d.sum},
          {"min", d.min},   {"max", d.max},     {"buckets", buckets_to_json(d)}};
}

Distribution distribution_from_json(const json& j) {
  Distribution d;
  d.unit = j.at("unit").get<std::string>();
  d.count = j.at("count").get<int64_t>();
  d.sum = j.at("sum").get<double>();
  d.min = j.at("min").get<double>();
  d.max = j.at("max").get<double>();
  for (const json& b : j.at("buckets")) {
    if (!b.is_array() || b.size() != 3) throw std::runtime_error("a bucket is [lo, hi, count]");
    d.buckets.push_back({b.at(0).get<double>(), b.at(1).get<double>(), b.at(2).get<int64_t>()});
  }
  if (std::string why = distribution_problem(d); !why.empty()) {
    throw std::runtime_error("distribution: " + why);
  }
  return d;
}

json distributions_to_json(const std::map<std::string, Distribution>& m) {
  json out = json::object();
  for (const auto& [name, d] : m) out[name] = distribution_to_json(d);
  return out;
}

std::map<std::string, Distribution> distributions_from_json(const json& j) {
  std::map<std::string, Distribution> out;
  for (const auto& [name, d] : j.items()) out.emplace(name, distribution_from_json(d));
  return out;
}

}  // namespace foliolab
