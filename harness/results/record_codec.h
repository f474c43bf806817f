// The one codec of RunRecord: JSON with a schema version. Writes schema 2; reads schema 2 and
// the schema-1 files of earlier foliolab versions (raw runner JSON with a nested guest report).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

inline constexpr int kRunRecordSchema = 2;

nlohmann::json encode_record(const RunRecord& record);
// `where` names the source in error messages (a file path).
Result<RunRecord> decode_record(const nlohmann::json& j, std::string_view where = "run record");
Result<RunRecord> parse_record(std::string_view text, std::string_view where = "run record");

// A run's identity alone (as plan.json lists them), in the record's "identity" form.
nlohmann::json encode_identity(const RunIdentity& id);
Result<RunIdentity> decode_identity(const nlohmann::json& j, std::string_view where);

// Key/value lists as JSON arrays of [key, value] pairs, order kept.
nlohmann::json kv_to_json(const KeyValues& kv);
KeyValues kv_from_json(const nlohmann::json& a);  // throws nlohmann exceptions on bad input

}  // namespace foliolab
