// The schema of <results root>/index.sqlite (and of a lab server's database, SQLite or
// PostgreSQL, results/sql.h): every table's migration step in one sequence (the
// database has one user_version), and how the index is opened (WAL, a busy timeout, foreign
// keys, migrated). The run tables are results/index.h's; the bisection tables
// results/bisect_index.h's; change points and known-issue matches results/finding_index.h's.
#pragma once

#include <filesystem>
#include <string>

#include "results/sql.h"
#include "util/result.h"

namespace foliolab {

inline constexpr int kIndexSchema = 8;
inline constexpr const char* kIndexFile = "index.sqlite";

// Schema management, exposed for the migration test: brings `db` from its user_version up to
// `target` (a fresh database is version 0), each step in its own transaction.
Result<void> migrate_index(SqlDb& db, int target = kIndexSchema);

struct IndexDb {
  SqlDb db;
  std::filesystem::path root;  // the results root, canonical
};
// Opens <root>/index.sqlite, creating the root and the file or migrating it from an older
// schema.
Result<IndexDb> open_index_db(const std::filesystem::path& results_root);
// Opens an index by URL: a PostgreSQL URL (postgresql://…) or a SQLite file, migrated.
Result<SqlDb> open_index_url(const std::string& target);

}  // namespace foliolab
