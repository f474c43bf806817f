// A distribution metric (model/distribution.h) in JSON, as run.json keeps it in a rep's
// "distributions" object and the index's `distributions` table keeps its buckets:
//   {"unit": "ns", "count": 3, "sum": 6, "min": 1, "max": 3, "buckets": [[1, 1, 1], [2, 3, 2]]}
// (each bucket [lo, hi, count]).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "model/distribution.h"

namespace foliolab {

nlohmann::json distribution_to_json(const Distribution& d);
nlohmann::json buckets_to_json(const Distribution& d);
// Throws (nlohmann's or std::runtime_error) on a damaged one, as the codec's readers do.
Distribution distribution_from_json(const nlohmann::json& j);

nlohmann::json distributions_to_json(const std::map<std::string, Distribution>& m);
std::map<std::string, Distribution> distributions_from_json(const nlohmann::json& j);

}  // namespace foliolab
