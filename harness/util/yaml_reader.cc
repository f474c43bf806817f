#include "util/yaml_reader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/text.h"

namespace foliolab {

const YamlField* YamlFields::find(std::string_view key) const {
  for (const auto& [name, field] : entries) {
    if (name == key) return &field;
  }
  return nullptr;
}

std::string yaml_key_path(const std::string& parent, const std::string& key) {
  if (is_word(key, "_-/") && key.front() != '/') return parent.empty() ? key : parent + "." + key;
  return parent + "[\"" + key + "\"]";
}

std::string yaml_index_path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string yaml_type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "an undefined value";
  }
}

Error yaml_exception_error(const std::exception& e, const std::string& file_name) {
  if (const auto* y = dynamic_cast<const YAML::Exception*>(&e)) {
    // yaml-cpp marks are 0-based.
    return make_error(file_name + ":" + std::to_string(y->mark.line + 1) + ":" +
                      std::to_string(y->mark.column + 1) + ": " + y->msg);
  }
  return make_error(file_name + ": " + e.what());
}

Result<YAML::Node> parse_yaml(const std::string& text, const std::string& file_name,
                              std::string_view what) {
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.empty()) return YAML::Node();
    if (docs[0].IsNull()) return docs[0];
    if (docs.size() > 1) {
      const YamlPos at = YamlReader::pos(docs[1]);
      return make_error(file_name + ":" + std::to_string(at.line) + ":" +
                        std::to_string(at.column) + ": only one YAML document per " +
                        std::string(what));
    }
    return docs[0];
  } catch (const std::exception& e) {
    return yaml_exception_error(e, file_name);
  }
}

Result<YAML::Node> load_yaml_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  return parse_yaml(text.str(), path, what);
}

YamlPos YamlReader::pos(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return YamlPos{};
  return YamlPos{mark.line + 1, mark.column + 1};
}

YamlPos YamlReader::pos(const YamlField& f) { return pos(f.value.IsNull() ? f.key : f.value); }

std::string YamlReader::first_at(const YamlPos& at) {
  return " (first at " + std::to_string(at.line) + ":" + std::to_string(at.column) + ")";
}

Error YamlReader::error(const YamlPos& at, const std::string& path,
                        const std::string& message) const {
  std::string text = file_;
  if (at.line > 0) text += ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
  text += ": ";
  if (!path.empty()) text += path + ": ";
  return make_error(text + message);
}

Error YamlReader::error(const YamlField& f, const std::string& message) const {
  return error(pos(f), f.path, message);
}

Error YamlReader::key_error(const YamlField& f, const std::string& message) const {
  return error(pos(f.key), f.path, message);
}

Result<YamlField> YamlReader::map_entry(const YamlField& f, const YamlFields& seen,
                                        const YAML::Node& key, const YAML::Node& value,
                                        const Keys* allowed) const {
  if (!key.IsScalar()) return error(pos(key), f.path, "expected a scalar key");
  const std::string name = key.Scalar();
  YamlField child{key, value, yaml_key_path(f.path, name)};
  if (name == "<<" && key.Tag() != "!") {
    return key_error(child, "YAML merge keys ('<<') are not supported; repeat the keys");
  }
  if (const YamlField* first = seen.find(name)) {
    return key_error(child, "duplicate key" + first_at(pos(first->key)));
  }
  if (allowed && std::find(allowed->begin(), allowed->end(), name) == allowed->end()) {
    if (const std::string near = did_you_mean(name, *allowed); !near.empty()) {
      return key_error(child, "unknown key" + near);
    }
    return key_error(child, "unknown key; valid keys here: " + join(*allowed, ", "));
  }
  return child;
}

Result<YamlFields> YamlReader::read_map(const YamlField& f, const Keys* allowed) const {
  if (!f.value.IsMap()) return error(f, "expected a map, got " + yaml_type_name(f.value));
  YamlFields out;
  for (auto it = f.value.begin(); it != f.value.end(); ++it) {
    // Copies: the iterator hands out proxies that die with the full expression.
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    auto child = map_entry(f, out, key, value, allowed);
    FL_TRY(child);
    out.entries.emplace_back(key.Scalar(), std::move(*child));
  }
  return out;
}

Result<void> YamlReader::require(const YamlFields& fields, const YamlField& f,
                                 const Keys& required) const {
  for (const auto& name : required) {
    if (!fields.find(name)) {
      return error(pos(f.value), f.path, "missing required key '" + name + "'");
    }
  }
  return {};
}

Result<std::vector<YamlField>> YamlReader::read_list(const YamlField& f,
                                                     const char* what_if_empty) const {
  if (!f.value.IsSequence()) return error(f, "expected a list, got " + yaml_type_name(f.value));
  if (f.value.size() == 0 && what_if_empty) return error(f, what_if_empty);
  std::vector<YamlField> out;
  for (size_t i = 0; i < f.value.size(); ++i) {
    const YAML::Node item = f.value[i];
    out.push_back(YamlField{item, item, yaml_index_path(f.path, i)});
  }
  return out;
}

Result<std::string> YamlReader::read_scalar(const YamlField& f, bool single_line) const {
  if (!f.value.IsScalar()) return error(f, "expected a scalar, got " + yaml_type_name(f.value));
  const std::string& text = f.value.Scalar();
  if (single_line && text.find_first_of("\t\n\r") != std::string::npos) {
    return error(f, "value must not contain a tab or newline");
  }
  return text;
}

Result<std::string> YamlReader::read_nonempty(const YamlField& f) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  if (text->empty()) return error(f, "must not be empty");
  return text;
}

Result<int64_t> YamlReader::read_int(const YamlField& f, int64_t min, int64_t max) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  const auto n = parse_int(*text);
  if (!n) return error(f, "expected an integer, got '" + *text + "'");
  if (*n < min || *n > max) return error(f, "integer out of range: " + *text);
  return *n;
}

Result<bool> YamlReader::read_bool(const YamlField& f) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  if (*text == "true") return true;
  if (*text == "false") return false;
  return error(f, "expected true or false, got '" + *text + "'");
}

Result<double> YamlReader::read_number(const YamlField& f) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  const auto value = parse_double(*text);
  if (!value || !std::isfinite(*value)) return error(f, "expected a number, got '" + *text + "'");
  return *value;
}

Result<uint64_t> YamlReader::read_memory(const YamlField& f) const {
  auto text = read_scalar(f);
  FL_TRY(text);
  std::string why;
  const auto mib = parse_memory_mib(*text, &why);
  if (!mib) return error(f, "invalid memory size '" + *text + "': " + why);
  return *mib;
}

}  // namespace foliolab
