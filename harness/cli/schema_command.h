// `foliolab schema [experiment|recipe|known-issues|project]`: the JSON Schema of a file kind,
// made from the key table its loader checks against (model/file_keys.h, model/json_schema.h);
// `--out DIR` writes every kind as DIR/KIND.json (the committed schema/ folder).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "util/result.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

// <data root>/schema/KIND.json: where the schemas of a data root are (schema/ in the source
// tree, share/foliolab/schema/ installed).
std::filesystem::path schema_file(const std::filesystem::path& data_root, const std::string& kind);

// The schema of `kind`; an error naming the kinds for any other name.
Result<std::string> schema_text(const std::string& kind);

// Writes DIR/KIND.json for every kind; the paths written.
Result<std::vector<std::filesystem::path>> write_schemas(const std::filesystem::path& dir);

std::function<int()> setup_schema(CLI::App& app);

}  // namespace foliolab::cli
