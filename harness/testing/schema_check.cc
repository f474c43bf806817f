#include "testing/schema_check.h"

#include <chrono>
#include <cmath>
#include <regex>
#include <sstream>

#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {

// https://yaml.org/spec/1.2.2/#1032-tag-resolution
nlohmann::json core_scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() != "?") return s;  // quoted, a block scalar, or tagged: a string
  static const std::regex kBool("true|True|TRUE|false|False|FALSE");
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kOctal("0o[0-7]+"), kHex("0x[0-9a-fA-F]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, kBool)) return s[0] == 't' || s[0] == 'T';
  if (std::regex_match(s, kInt)) return std::stoll(s);
  if (std::regex_match(s, kOctal)) return std::stoll(s.substr(2), nullptr, 8);
  if (std::regex_match(s, kHex)) return std::stoll(s.substr(2), nullptr, 16);
  if (std::regex_match(s, kFloat)) return std::stod(s);
  return s;
}

constexpr const char* kValidator = R"py(
import json, sys
try:
    import jsonschema
except ImportError as e:
    print("FAIL python3 has no jsonschema (apt-get install python3-jsonschema):", e)
    sys.exit(0)
schema = json.load(open(sys.argv[1]))
try:
    jsonschema.Draft7Validator.check_schema(schema)
except jsonschema.SchemaError as e:
    print("FAIL the schema is not a draft-07 schema:", str(e).splitlines()[0])
    sys.exit(0)
v = jsonschema.Draft7Validator(schema)
for name, doc in json.load(open(sys.argv[2])):
    print("DOC", name)
    for e in sorted(v.iter_errors(doc), key=str):
        print("ERR", "/".join(map(str, e.absolute_path)) or "(root)", e.message.replace("\n", " "))
)py";

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return core_scalar(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = yaml_to_json(kv.second);
      return out;
    }
    default:
      return nullptr;
  }
}

SchemaVerdicts validate_with_schema(const std::filesystem::path& schema_file,
                                    const std::vector<std::pair<std::string, YAML::Node>>& docs) {
  ScopedTestDir dir("foliolab-schema-check");
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, doc] : docs) list.push_back({name, yaml_to_json(doc)});
  SchemaVerdicts out;
  if (!write_file_atomic(dir / "docs.json", list.dump()).ok()) {
    out.failure = "cannot write docs.json";
    return out;
  }
  RealProcessRunner proc;
  const ProcessResult r = proc.run(
      {.argv = {"python3", "-c", kValidator, schema_file.string(), (dir / "docs.json").string()},
       .capture = true,
       .timeout = std::chrono::seconds(120)});
  if (r.exit_code != 0) out.failure = "python3: exit " + std::to_string(r.exit_code);
  std::istringstream lines(r.output);
  std::string current;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("FAIL ")) out.failure = line.substr(5);
    if (line.starts_with("DOC ")) out.errors[current = line.substr(4)];
    if (line.starts_with("ERR ")) out.errors[current].push_back(line.substr(4));
  }
  if (out.failure.empty() && out.errors.size() != docs.size()) {
    out.failure = "python3 answered for " + std::to_string(out.errors.size()) + " of " +
                  std::to_string(docs.size()) + " documents: " + r.output;
  }
  return out;
}

}  // namespace foliolab
