// Reading YAML files with one error style: "file:line:col: key.path: message" (1-based line and
// column), unknown keys answered with "did you mean", a value of the wrong type named. Every
// YAML file foliolab reads (experiments, hosts files, config.yaml) goes through here.
#pragma once

#include <yaml-cpp/yaml.h>

#include <climits>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace foliolab {

// A place in a YAML file, 1-based; line 0 = unknown.
struct YamlPos {
  int line = 0;
  int column = 0;
};

// A value in the document with the key that introduced it and its key path. For list items
// and the root, `key` is the value itself.
struct YamlField {
  YAML::Node key;
  YAML::Node value;
  std::string path;  // "kernels[0].name"
};

// The entries of a YAML map in document order.
struct YamlFields {
  std::vector<std::pair<std::string, YamlField>> entries;
  const YamlField* find(std::string_view key) const;
};

// "parent.key" (or `key` at the root); keys that are not plain words read parent["key"].
std::string yaml_key_path(const std::string& parent, const std::string& key);
// "parent[index]".
std::string yaml_index_path(const std::string& parent, size_t index);
// "nothing", "a scalar", "a list", "a map".
std::string yaml_type_name(const YAML::Node& node);

// A yaml-cpp exception as "file:line:col: message" (any other exception as "file: what").
Error yaml_exception_error(const std::exception& e, const std::string& file_name);

// Parses one YAML document (a Null node for an empty text). Syntax errors read
// "file:line:col: message"; a second document is refused as "only one YAML document per
// <what>".
Result<YAML::Node> parse_yaml(const std::string& text, const std::string& file_name,
                              std::string_view what);
// Reads `path` ("path: cannot open: <why>" when it cannot) and parses it as parse_yaml does.
Result<YAML::Node> load_yaml_file(const std::string& path, std::string_view what);

// Located errors and typed reads for the nodes of one file.
class YamlReader {
 public:
  using Keys = std::vector<std::string>;

  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  // The node's place (line 0 when yaml-cpp has no mark for it).
  static YamlPos pos(const YAML::Node& node);
  // yaml-cpp marks an empty value at the next token, so this points at its key instead.
  static YamlPos pos(const YamlField& f);
  // " (first at line:col)", for duplicates.
  static std::string first_at(const YamlPos& at);
  // The root of a document as a field (empty path).
  static YamlField root(const YAML::Node& node) { return YamlField{node, node, ""}; }

  // "file:line:col: path: message" (no "path: " when the path is empty).
  Error error(const YamlPos& at, const std::string& path, const std::string& message) const;
  // An error about a field's value.
  Error error(const YamlField& f, const std::string& message) const;
  // An error about a map key (rather than its value).
  Error key_error(const YamlField& f, const std::string& message) const;

  // Checks that f is a map without duplicate or merge keys; with `allowed`, rejects other keys
  // ("unknown key; did you mean 'x'?", else "unknown key; valid keys here: ...").
  Result<YamlFields> read_map(const YamlField& f, const Keys* allowed) const;
  // Missing keys are reported at the map that lacks them.
  Result<void> require(const YamlFields& fields, const YamlField& f, const Keys& required) const;
  // The items of a list; an empty one is an error when `what_if_empty` is given.
  Result<std::vector<YamlField>> read_list(const YamlField& f, const char* what_if_empty) const;

  // A scalar; no tab or newline unless `single_line` is false.
  Result<std::string> read_scalar(const YamlField& f, bool single_line = true) const;
  Result<std::string> read_nonempty(const YamlField& f) const;
  // A decimal integer in [min, max] ("integer out of range: <text>" outside).
  Result<int64_t> read_int(const YamlField& f, int64_t min = INT_MIN, int64_t max = INT_MAX) const;
  Result<bool> read_bool(const YamlField& f) const;
  // A finite decimal number.
  Result<double> read_number(const YamlField& f) const;
  // A memory size in MiB (parse_memory_mib: "512M", "1G", a plain number of MiB).
  Result<uint64_t> read_memory(const YamlField& f) const;

 private:
  Result<YamlField> map_entry(const YamlField& f, const YamlFields& seen, const YAML::Node& key,
                              const YAML::Node& value, const Keys* allowed) const;

  std::string file_;
};

}  // namespace foliolab
