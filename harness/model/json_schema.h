// A key table (model/key_table.h) as a JSON Schema, draft-07: what Debian 12's
// python3-jsonschema (4.10) and yaml-language-server both validate. Scalars are typed as
// YAML 1.2 types them, which is what an editor checks: a size is a string ("64M") or an integer
// (MiB), a percentage a string ("5%"), free-form maps (knob sets, sysctl, params) say the type
// of their values.
#pragma once

#include <string>

#include "model/file_keys.h"
#include "model/key_table.h"

namespace foliolab {

inline constexpr const char* kJsonSchemaDraft = "http://json-schema.org/draft-07/schema#";

// The schema of one file kind, indented, ending in a newline.
std::string json_schema(const file_keys::FileKind& kind);
// The schema of a value of type `t` (no $schema), compact: for tests.
std::string json_schema_of(const ValueType& t);

}  // namespace foliolab
