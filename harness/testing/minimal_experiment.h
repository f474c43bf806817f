// The smallest experiment the loader takes (one kernel, x86_64, THP always, the `fault`
// workload) and the loader tests' helpers that append their own keys to it.
#pragma once

#include <string>

#include "model/loader.h"

namespace foliolab {

inline constexpr const char* kMinimalExperimentYaml = R"(name: q
kernels:
  - name: k
archs: [x86_64]
knobs:
  a: {enabled: always}
workloads:
  - name: fault
)";

// The minimal experiment with `extra` (top-level keys) appended, as q.yaml.
inline Result<Experiment> parse_minimal(const std::string& extra) {
  return parse_experiment(std::string(kMinimalExperimentYaml) + extra, "q.yaml");
}

// The error message of a minimal experiment plus `extra`, or "(loaded)".
inline std::string minimal_error(const std::string& extra) {
  auto exp = parse_minimal(extra);
  return exp.ok() ? std::string("(loaded)") : exp.error().message;
}

}  // namespace foliolab
