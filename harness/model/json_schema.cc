#include "model/json_schema.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace foliolab {
namespace {

using Json = nlohmann::ordered_json;
using Kind = ValueType::Kind;

// util/text.h parse_memory_kib: digits, then K, M, G or T with an optional B or iB.
constexpr const char* kSizePattern = "^[0-9]+([KkMmGgTt]([Ii]?[Bb])?)?$";
constexpr const char* kDurationPattern = "^[0-9]+(ms)?$";
// util/text.h parse_int and parse_double, for a quoted number.
constexpr const char* kQuotedIntPattern = "^-?[0-9]+$";
constexpr const char* kQuotedNumberPattern = "^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$";
constexpr const char* kDatePattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

std::string regex_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

Json schema_of(const ValueType& t);

Json scalar_schema(const ValueType& t) {
  switch (t.kind) {
    case Kind::kString: {
      Json j = {{"type", {"string", "number"}}};
      if (!t.pattern.empty()) j["pattern"] = t.pattern;
      return j;
    }
    case Kind::kText:
      return {{"type", {"string", "number"}}};
    case Kind::kScalar:
      return {{"type", {"string", "number", "boolean"}}};
    case Kind::kInt:
    case Kind::kNumber: {
      Json j = {{"type", t.kind == Kind::kInt ? "integer" : "number"}};
      const auto bound = [&](double v) {
        return t.kind == Kind::kInt ? Json(static_cast<int64_t>(v)) : Json(v);
      };
      if (t.min) j["minimum"] = bound(*t.min);
      if (t.max) j["maximum"] = bound(*t.max);
      // The loader reads a scalar's text, so a quoted "3" is 3 there: the schema takes it too
      // (plan checks its bounds), so that an editor never flags what plan accepts.
      const char* quoted = t.kind == Kind::kInt ? kQuotedIntPattern : kQuotedNumberPattern;
      return {{"anyOf", {j, {{"type", "string"}, {"pattern", quoted}}}}};
    }
    case Kind::kBool:
      return {{"anyOf", {{{"type", "boolean"}}, {{"enum", {"true", "false"}}}}}};
    case Kind::kSize:
      return {{"type", {"string", "integer"}}, {"minimum", 0}, {"pattern", kSizePattern}};
    case Kind::kDuration:
      return {{"type", {"string", "integer"}}, {"minimum", 0}, {"pattern", kDurationPattern}};
    case Kind::kPercent:
      return {{"type", "string"},
              {"pattern", "^\\s*" + regex_escape(t.pattern) + "\\s*[0-9.eE+-]+\\s*%\\s*$"}};
    case Kind::kDate:
      return {{"type", "string"}, {"pattern", kDatePattern}};
    default:
      return {{"enum", t.values}};
  }
}

// A KeyRule as draft-07's if/then: if the key is given (with the value), then the rest holds.
Json rule_schema(const KeyRule& r) {
  Json when = {{"required", {r.key}}};
  if (!r.value.empty()) when["properties"] = {{r.key, {{"const", r.value}}}};
  Json then = {{"description", r.why}};
  std::vector<std::string> required = r.needs;
  if (!r.needs_key.empty()) {
    required.push_back(r.needs_key);
    then["properties"] = {{r.needs_key, {{"const", r.needs_value}}}};
  }
  if (!required.empty()) then["required"] = required;
  const auto any_given = [](const std::vector<std::string>& keys) {
    Json any = Json::array();
    for (const std::string& k : keys) any.push_back({{"required", {k}}});
    return any;
  };
  if (!r.needs_any.empty()) then["anyOf"] = any_given(r.needs_any);
  if (!r.excludes.empty()) then["not"] = {{"anyOf", any_given(r.excludes)}};
  return {{"if", when}, {"then", then}};
}

Json map_schema(const ValueType& t) {
  Json j = {{"type", "object"}};
  if (t.nullable) j["type"] = {"object", "null"};
  Json props = Json::object();
  for (const KeySpec& k : t.keys) props[k.name] = schema_of(k.type);
  if (!t.keys.empty()) j["properties"] = props;
  if (!t.required().empty()) j["required"] = t.required();
  j["additionalProperties"] = t.extra ? schema_of(*t.extra) : Json(false);
  if (!t.key_pattern.empty()) j["propertyNames"] = {{"pattern", t.key_pattern}};
  if (t.min_keys) j["minProperties"] = t.min_keys;
  if (t.max_keys) j["maxProperties"] = t.max_keys;
  if (!t.exactly_one.empty()) {
    Json one = Json::array();
    for (const std::string& k : t.exactly_one) one.push_back({{"required", {k}}});
    j["oneOf"] = one;
  }
  if (!t.rules.empty()) {
    Json all = Json::array();
    for (const KeyRule& r : t.rules) all.push_back(rule_schema(r));
    j["allOf"] = all;
  }
  return j;
}

Json schema_of(const ValueType& t) {
  Json j;
  if (t.kind == Kind::kMap) {
    j = map_schema(t);
  } else if (t.kind == Kind::kList) {
    j = {{"type", "array"}, {"items", schema_of(*t.item)}};
    if (t.min_items) j["minItems"] = t.min_items;
    if (t.max_items) j["maxItems"] = t.max_items;
  } else if (t.kind == Kind::kOneOf) {
    Json any = Json::array();
    for (const ValueType& a : t.alternatives) any.push_back(schema_of(a));
    j = {{"anyOf", any}};
  } else {
    j = scalar_schema(t);
  }
  if (!t.doc.empty()) {
    Json described = {{"description", t.doc}};
    described.update(j);
    return described;
  }
  return j;
}

}  // namespace

std::string json_schema(const file_keys::FileKind& kind) {
  Json j = {{"$schema", kJsonSchemaDraft}, {"title", kind.title}};
  j.update(schema_of(kind.table()));
  return j.dump(2) + "\n";
}

std::string json_schema_of(const ValueType& t) { return schema_of(t).dump(); }

}  // namespace foliolab
