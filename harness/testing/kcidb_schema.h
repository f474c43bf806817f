// Test helper: validating a KCIDB I/O document against KernelCI's published schema v5.3 with
// python3 and jsonschema (python3-jsonschema: Draft 7 with its format checker), for the tests of
// report/kcidb.h and `foliolab export --kcidb`. The schema is not in this tree (GPL-2.0+,
// kernelci/kcidb-io); CI has it at ../shared/kcidb/ beside the checkout.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "testing/source_root.h"
#include "util/process.h"

namespace foliolab {

inline constexpr const char* kKcidbSchemaMissing =
    "no KCIDB schema: set FOLIOLAB_KCIDB_SCHEMA to kcidb-io.schema.v5.3.json, or put it in "
    "../shared/kcidb/ beside the checkout (dump kcidb_io.schema.LATEST.json of "
    "https://github.com/kernelci/kcidb-io with json.dump(..., indent=2, sort_keys=True))";

// FOLIOLAB_KCIDB_SCHEMA, else <source root>/../shared/kcidb/kcidb-io.schema.v5.3.json; "" when
// neither is a file.
inline std::filesystem::path kcidb_schema_path() {
  std::error_code ec;
  if (const char* env = std::getenv("FOLIOLAB_KCIDB_SCHEMA"); env && *env) {
    if (std::filesystem::is_regular_file(env, ec)) return env;
  }
  const auto shared =
      (kSourceRoot / ".." / "shared/kcidb/kcidb-io.schema.v5.3.json").lexically_normal();
  return std::filesystem::is_regular_file(shared, ec) ? shared : std::filesystem::path();
}

// Exit status 0: `doc` is valid; 1: it is not (each error printed as "path message"); 2: python3
// has no jsonschema (scripts/setup.sh --test installs python3-jsonschema).
inline ProcessResult validate_kcidb(const std::filesystem::path& schema,
                                    const std::filesystem::path& doc) {
  static constexpr const char* kScript = R"py(
import json, sys
try:
    import jsonschema
except ImportError as e:
    print("python3 has no jsonschema (apt-get install python3-jsonschema):", e)
    sys.exit(2)
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = sorted(v.iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors:
    print("/".join(map(str, e.absolute_path)) or "(root)", e.message)
sys.exit(1 if errors else 0)
)py";
  RealProcessRunner proc;
  return proc.run({.argv = {"python3", "-c", kScript, schema.string(), doc.string()},
                   .capture = true,
                   .timeout = std::chrono::seconds(120)});
}

}  // namespace foliolab
