#include "cli/schema_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

#include "cli/cli_util.h"
#include "model/file_keys.h"
#include "model/json_schema.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const file_keys::FileKind& k : file_keys::file_kinds()) names.push_back(k.name);
  return names;
}

}  // namespace

fs::path schema_file(const fs::path& data_root, const std::string& kind) {
  return data_root / "schema" / (kind + ".json");
}

Result<std::string> schema_text(const std::string& kind) {
  if (const file_keys::FileKind* k = file_keys::find_file_kind(kind)) return json_schema(*k);
  const std::vector<std::string> names = kind_names();
  return make_error("unknown file kind '" + kind + "'" + did_you_mean(kind, names) +
                    " (valid: " + join(names, ", ") + ")");
}

Result<std::vector<fs::path>> write_schemas(const fs::path& dir) {
  std::vector<fs::path> written;
  for (const file_keys::FileKind& k : file_keys::file_kinds()) {
    const fs::path path = dir / (k.name + ".json");
    FL_TRY(write_file_atomic(path, json_schema(k)));
    written.push_back(path);
  }
  return written;
}

std::function<int()> setup_schema(CLI::App& app) {
  auto kind = std::make_shared<std::string>("experiment");
  auto out = std::make_shared<std::string>();
  app.add_option("kind", *kind,
                 "the file kind: experiment (the default), recipe, known-issues or project");
  app.add_option("--out", *out, "write every kind's schema to DIR/KIND.json instead");
  return [=] {
    if (!out->empty()) {
      auto written = write_schemas(*out);
      if (!written.ok()) return fail(written.error());
      for (const fs::path& p : *written) fmt::print("wrote {}\n", p.string());
      return kExitOk;
    }
    auto text = schema_text(*kind);
    if (!text.ok()) return fail(text.error());
    fmt::print("{}", *text);
    return kExitOk;
  };
}

}  // namespace foliolab::cli
