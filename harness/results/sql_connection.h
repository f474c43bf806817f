// The engine side of results/sql.h: a connection and its prepared statements, as each engine
// (results/sql_sqlite.h, results/sql_postgres.h) implements them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace foliolab {

enum class SqlEngine { kSqlite, kPostgres };

// One prepared statement of an engine. Parameters are 1-based, columns 0-based.
class SqlCursor {
 public:
  virtual ~SqlCursor() = default;
  virtual void bind_int(int index, int64_t value) = 0;
  virtual void bind_double(int index, double value) = 0;
  virtual void bind_text(int index, std::string_view value) = 0;
  virtual void bind_null(int index) = 0;
  virtual Result<bool> step() = 0;  // true: a row is available
  virtual void reset() = 0;         // ready to run again; bindings cleared
  virtual int64_t column_int(int index) const = 0;
  virtual double column_double(int index) const = 0;
  virtual std::string column_text(int index) const = 0;
  virtual bool column_is_null(int index) const = 0;
  virtual int column_count() const = 0;
};

// One connection of an engine.
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlEngine engine() const = 0;
  // What the connection is, for messages: the file, or the URL without its password.
  virtual const std::string& name() const = 0;
  virtual Result<void> exec(const std::string& sql) = 0;  // statements without results
  virtual Result<std::unique_ptr<SqlCursor>> prepare(std::string_view sql) = 0;
  // The statement that starts a writing transaction (SQLite takes its write lock at once).
  virtual const char* begin_sql() const = 0;
  // Inside a transaction: waits for other migrators (PostgreSQL: an advisory lock; SQLite's
  // BEGIN IMMEDIATE already holds the database).
  virtual Result<void> lock_schema() = 0;
  virtual Result<int> schema_version() = 0;
  virtual Result<void> set_schema_version(int version) = 0;
  // A schema step written for SQLite, as this engine reads it.
  virtual std::string ddl(std::string_view sqlite_ddl) const = 0;
  // SQL for the seconds from one ISO 8601 text column to another (NULL when either is empty).
  virtual std::string seconds_between(std::string_view from, std::string_view to) const = 0;
};

// The first column of the first row of `sql`, as an integer.
Result<int64_t> sql_query_int(SqlConnection& c, std::string_view sql);

// "postgresql://user:secret@host/db" -> "postgresql://user@host/db".
std::string redact_url(std::string_view url);

}  // namespace foliolab
