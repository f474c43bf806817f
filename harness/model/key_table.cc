#include "model/key_table.h"

#include <stdexcept>
#include <utility>

namespace foliolab {
namespace {

using Kind = ValueType::Kind;

ValueType of_kind(Kind kind, std::string doc) {
  ValueType t;
  t.kind = kind;
  t.doc = std::move(doc);
  return t;
}

}  // namespace

const KeySpec* ValueType::key(const std::string& name) const {
  for (const KeySpec& k : keys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const std::vector<std::string>& ValueType::values_of(const std::string& name) const {
  const KeySpec* k = key(name);
  if (!k || k->type.kind != Kind::kEnum) throw std::logic_error("no choice key '" + name + "'");
  return k->type.values;
}

ValueType ValueType::string(std::string doc, std::string pattern) {
  ValueType t = of_kind(Kind::kString, std::move(doc));
  t.pattern = std::move(pattern);
  return t;
}

ValueType ValueType::text(std::string doc) { return of_kind(Kind::kText, std::move(doc)); }

ValueType ValueType::scalar(std::string doc) { return of_kind(Kind::kScalar, std::move(doc)); }

ValueType ValueType::integer(std::string doc, std::optional<double> min,
                             std::optional<double> max) {
  ValueType t = of_kind(Kind::kInt, std::move(doc));
  t.min = min;
  t.max = max;
  return t;
}

ValueType ValueType::number(std::string doc, std::optional<double> min) {
  ValueType t = of_kind(Kind::kNumber, std::move(doc));
  t.min = min;
  return t;
}

ValueType ValueType::boolean(std::string doc) { return of_kind(Kind::kBool, std::move(doc)); }

ValueType ValueType::size(std::string doc) { return of_kind(Kind::kSize, std::move(doc)); }

ValueType ValueType::duration(std::string doc) { return of_kind(Kind::kDuration, std::move(doc)); }

ValueType ValueType::percent(std::string doc, std::string prefix) {
  ValueType t = of_kind(Kind::kPercent, std::move(doc));
  t.pattern = std::move(prefix);
  return t;
}

ValueType ValueType::date(std::string doc) { return of_kind(Kind::kDate, std::move(doc)); }

ValueType ValueType::choice(std::string doc, std::vector<std::string> values) {
  ValueType t = of_kind(Kind::kEnum, std::move(doc));
  t.values = std::move(values);
  return t;
}

ValueType ValueType::map(std::string doc, std::vector<KeySpec> keys) {
  ValueType t = of_kind(Kind::kMap, std::move(doc));
  for (const KeySpec& k : keys) {
    t.names_.push_back(k.name);
    if (k.required) t.required_.push_back(k.name);
  }
  t.keys = std::move(keys);
  return t;
}

ValueType ValueType::dict(std::string doc, ValueType value, std::string key_pattern) {
  return map(std::move(doc), {}).with_extra(std::move(value), std::move(key_pattern));
}

ValueType ValueType::list(std::string doc, ValueType item, size_t min_items) {
  ValueType t = of_kind(Kind::kList, std::move(doc));
  t.item = std::make_shared<const ValueType>(std::move(item));
  t.min_items = min_items;
  return t;
}

ValueType ValueType::one_of(std::string doc, std::vector<ValueType> alternatives) {
  ValueType t = of_kind(Kind::kOneOf, std::move(doc));
  t.alternatives = std::move(alternatives);
  return t;
}

ValueType ValueType::with_extra(ValueType value, std::string key_pattern) && {
  extra = std::make_shared<const ValueType>(std::move(value));
  this->key_pattern = std::move(key_pattern);
  return std::move(*this);
}

ValueType ValueType::with_exactly_one(std::vector<std::string> keys) && {
  exactly_one = std::move(keys);
  return std::move(*this);
}

ValueType ValueType::with_rules(std::vector<KeyRule> r) && {
  rules = std::move(r);
  return std::move(*this);
}

ValueType ValueType::with_key_count(size_t min, size_t max) && {
  min_keys = min;
  max_keys = max;
  return std::move(*this);
}

ValueType ValueType::with_max_items(size_t max) && {
  max_items = max;
  return std::move(*this);
}

ValueType ValueType::or_null() && {
  nullable = true;
  return std::move(*this);
}

KeySpec key(std::string name, ValueType type) { return {std::move(name), std::move(type), false}; }

KeySpec required_key(std::string name, ValueType type) {
  return {std::move(name), std::move(type), true};
}

}  // namespace foliolab
