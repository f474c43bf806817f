// YAML experiment files -> Experiment. Every error message reads
// "file:line:col: key.path: message" (1-based line and column), with "did you mean" for
// misspelt keys. See experiments/quickstart.yaml for the annotated schema.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// Reads `path` and parses it; locations name the file as `path` is spelt.
Result<Experiment> load_experiment(const std::string& path);

// Parses one YAML document. `file_name` appears in error locations and becomes
// Experiment::file (relative kernel source paths are resolved against its folder).
Result<Experiment> parse_experiment(const std::string& yaml_text, const std::string& file_name);

// `run --repeat-until-ci 2%`: adaptive repetitions with this target; the min and max of a
// `repeat:` map stay, else the plain count (3 when absent) is the minimum and max is 30 (or that
// count when larger).
Result<void> apply_repeat_until_ci(Experiment& exp, const std::string& percent);

// "2%" or "2.5 %" as a fraction (0.02) when it lies in (0, 100 %); nullopt otherwise.
std::optional<double> parse_ci_percent(std::string_view text);

}  // namespace foliolab
