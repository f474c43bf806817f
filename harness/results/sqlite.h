// A small RAII layer over libsqlite3's C API: a connection and prepared statements whose
// failures come back as Result<void> values carrying sqlite's message.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace foliolab {

class SqliteStmt {
 public:
  SqliteStmt() = default;
  SqliteStmt(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStmt();
  SqliteStmt(SqliteStmt&& other) noexcept;
  SqliteStmt& operator=(SqliteStmt&& other) noexcept;
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  // Parameters are 1-based. A failed bind is remembered and reported by the next step().
  SqliteStmt& bind(int index, int64_t value);
  SqliteStmt& bind(int index, double value);
  SqliteStmt& bind(int index, std::string_view value);
  SqliteStmt& bind_null(int index);
  // NULL when the value is absent.
  SqliteStmt& bind_or_null(int index, const std::optional<std::string>& value);
  SqliteStmt& bind_or_null(int index, std::optional<int64_t> value);

  // true: a row is available; false: done.
  Result<bool> step();
  // Runs to completion (for statements without rows), then resets for reuse.
  Result<void> run();
  void reset();

  int64_t column_int(int index) const;  // 0-based
  double column_double(int index) const;
  std::string column_text(int index) const;
  bool column_is_null(int index) const;
  int column_count() const;  // of the result rows

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string bind_error_;
};

class SqliteDb {
 public:
  // Opens (creating) a database file with a busy timeout for concurrent writers.
  static Result<SqliteDb> open(const std::filesystem::path& file, int busy_timeout_ms);
  SqliteDb() = default;
  ~SqliteDb();
  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  Result<void> exec(const std::string& sql);  // one or more statements without results
  Result<SqliteStmt> prepare(std::string_view sql);
  Result<int64_t> query_int(std::string_view sql);  // first column of the first row
  int64_t last_insert_rowid() const;
  std::string error_message() const;
  const std::filesystem::path& file() const { return file_; }

 private:
  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
};

// BEGIN IMMEDIATE on construction (takes the write lock at once, waiting up to the busy
// timeout); ROLLBACK on destruction unless commit() succeeded.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  const Result<void>& begun() const { return begun_; }
  Result<void> commit();

 private:
  SqliteDb& db_;
  Result<void> begun_;
  bool open_ = false;
};

}  // namespace foliolab
