// Test helper: YAML documents checked against a JSON Schema as an editor checks them. A document
// becomes JSON with YAML 1.2's core types (what yaml-language-server sees: `64` an integer, `64M`
// and "64" strings, `true` a boolean, `~` null), and python3 with Debian's python3-jsonschema
// validates the lot in one process (Draft7Validator, the schema itself checked first).
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace foliolab {

// A YAML node as JSON, plain scalars typed by YAML 1.2's core schema, others strings.
nlohmann::json yaml_to_json(const YAML::Node& node);

struct SchemaVerdicts {
  std::string failure;  // python3 or jsonschema could not run, or the schema is not draft-07
  // Each document's name -> its errors ("path: message"); no errors: valid.
  std::map<std::string, std::vector<std::string>> errors;
};

// Validates each (name, document) against the schema in `schema_file`.
SchemaVerdicts validate_with_schema(const std::filesystem::path& schema_file,
                                    const std::vector<std::pair<std::string, YAML::Node>>& docs);

}  // namespace foliolab
