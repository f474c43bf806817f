// Typed key tables: what a YAML file of foliolab's may hold, key by key, with each value's type.
// One table per file kind (model/file_keys.h) is the single source of two things: the loader's
// unknown-key and required-key checks (read_map(f, &t.names()), require(..., t.required())) and
// the JSON Schema `foliolab schema` prints (model/json_schema.h). A key cannot be in one and
// not the other.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace foliolab {

struct KeySpec;

// A rule between the keys of one map that a key's type alone cannot say ("'approx' needs a
// 'tolerance'"). The loader checks it (Parser::check_rules) and the schema says it (draft-07
// if/then), so an editor flags what plan refuses, from the same table.
struct KeyRule {
  std::string key;                     // when this key is given ...
  std::string value;                   // ... with this scalar value ("" any value)
  std::vector<std::string> needs;      // then each of these is given too
  std::vector<std::string> needs_any;  // ... and at least one of these
  std::vector<std::string> excludes;   // ... and none of these
  std::string needs_key, needs_value;  // ... and this key is given, with this value
  std::string why;  // the loader's error, at `key` ("{key}": that key's name); for `excludes`
                    // at whichever of the two keys is written later
};

// The type of a value. Scalars read as YAML 1.2 types them (what an editor sees): `64M` is a
// string, `64` an integer, `true` a boolean.
struct ValueType {
  enum class Kind {
    kString,    // text; numbers too (`name: 6.12`), the loader reads the scalar's text
    kText,      // text that may span lines (description)
    kScalar,    // any scalar: string, number or boolean (knob values, params)
    kInt,       // an integer in [min, max]
    kNumber,    // a number in [min, max]
    kBool,      // true or false
    kSize,      // 512M, 1G, or a plain number of MiB
    kDuration,  // 100ms, or a plain number of milliseconds
    kPercent,   // "5%" (after `pattern`'s prefix, e.g. "<= 8%")
    kDate,      // YYYY-MM-DD
    kEnum,      // one of `values`
    kMap,       // `keys`, and with `extra` any other key (of that type)
    kList,      // items of type `item`
    kOneOf,     // one of `alternatives` (a scalar or a map, say)
  };
  Kind kind = Kind::kString;
  std::string doc;
  std::string pattern;  // kString: a regex the text matches; kPercent: the prefix
  std::optional<double> min, max;
  std::vector<std::string> values;  // kEnum
  std::vector<KeySpec> keys;        // kMap, in the loader's order (did-you-mean prefers the first)
  std::shared_ptr<const ValueType> extra;  // kMap: the type of other keys; null: none allowed
  std::string key_pattern;                 // kMap with extra: a regex other keys match
  std::vector<std::string> exactly_one;    // kMap: exactly one of these keys is given
  std::vector<KeyRule> rules;              // kMap: rules between its keys
  size_t min_keys = 0, max_keys = 0;       // kMap: at least, at most (0: no limit) keys
  std::shared_ptr<const ValueType> item;   // kList
  size_t min_items = 0, max_items = 0;     // kList (max 0: no limit)
  std::vector<ValueType> alternatives;     // kOneOf
  bool nullable = false;                   // an empty value (`key:`) is allowed

  // kMap: the key names in order, and those required (what the loader checks).
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::string>& required() const { return required_; }
  // kMap: the key called `name`, or null.
  const KeySpec* key(const std::string& name) const;
  // kMap: the values of the kEnum key `name` (std::logic_error for any other name).
  const std::vector<std::string>& values_of(const std::string& name) const;

  // Builders. Each doc is the one-line description an editor shows.
  static ValueType string(std::string doc, std::string pattern = "");
  static ValueType text(std::string doc);
  static ValueType scalar(std::string doc);
  static ValueType integer(std::string doc, std::optional<double> min = std::nullopt,
                           std::optional<double> max = std::nullopt);
  static ValueType number(std::string doc, std::optional<double> min = std::nullopt);
  static ValueType boolean(std::string doc);
  static ValueType size(std::string doc);
  static ValueType duration(std::string doc);
  static ValueType percent(std::string doc, std::string prefix = "");
  static ValueType date(std::string doc);
  static ValueType choice(std::string doc, std::vector<std::string> values);
  static ValueType map(std::string doc, std::vector<KeySpec> keys);
  // A map of free keys, each of type `value` (knob maps, sysctl maps, params).
  static ValueType dict(std::string doc, ValueType value, std::string key_pattern = "");
  static ValueType list(std::string doc, ValueType item, size_t min_items = 0);
  static ValueType one_of(std::string doc, std::vector<ValueType> alternatives);

  // Modifiers for the builders' results.
  ValueType with_extra(ValueType value, std::string key_pattern = "") &&;
  ValueType with_exactly_one(std::vector<std::string> keys) &&;
  ValueType with_rules(std::vector<KeyRule> rules) &&;
  ValueType with_key_count(size_t min, size_t max = 0) &&;
  ValueType with_max_items(size_t max) &&;
  ValueType or_null() &&;

 private:
  std::vector<std::string> names_, required_;
};

struct KeySpec {
  std::string name;
  ValueType type;
  bool required = false;
};

// A key and a required key of a map.
KeySpec key(std::string name, ValueType type);
KeySpec required_key(std::string name, ValueType type);

}  // namespace foliolab
