// YAML experiment files -> Experiment. Every error message reads
// "file:line:col: key.path: message" (1-based line and column), with "did you mean" for
// misspelt keys. See experiments/quickstart.yaml for the annotated schema.
#pragma once

#include <string>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// Reads `path` and parses it; locations name the file as `path` is spelt.
Result<Experiment> load_experiment(const std::string& path);

// Parses one YAML document. `file_name` appears in error locations and becomes
// Experiment::file (relative kernel source paths are resolved against its folder).
Result<Experiment> parse_experiment(const std::string& yaml_text, const std::string& file_name);

}  // namespace foliolab
