// One SQL layer over two engines: SQLite (a file; the embedded default, one machine, nothing to
// start) and PostgreSQL (a URL; a lab's server). Statements are written once, in the subset
// both engines accept (`?` parameters, ON CONFLICT upserts, RETURNING); the few places where
// the dialects differ ask the connection (ddl(), seconds_between(), the schema version).
// Failures come back as Result values carrying the engine's message.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
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

class SqlStmt {
 public:
  SqlStmt() = default;
  explicit SqlStmt(std::unique_ptr<SqlCursor> cursor) : c_(std::move(cursor)) {}

  SqlStmt& bind(int index, int64_t value);
  SqlStmt& bind(int index, double value);
  SqlStmt& bind(int index, std::string_view value);
  SqlStmt& bind_null(int index);
  // NULL when the value is absent.
  SqlStmt& bind_or_null(int index, const std::optional<std::string>& value);
  SqlStmt& bind_or_null(int index, std::optional<int64_t> value);

  // true: a row is available; false: done.
  Result<bool> step() { return c_->step(); }
  // Runs to completion (for statements without rows), then resets for reuse.
  Result<void> run();
  void reset() { c_->reset(); }

  int64_t column_int(int index) const { return c_->column_int(index); }
  double column_double(int index) const { return c_->column_double(index); }
  std::string column_text(int index) const { return c_->column_text(index); }
  bool column_is_null(int index) const { return c_->column_is_null(index); }
  int column_count() const { return c_->column_count(); }

 private:
  std::unique_ptr<SqlCursor> c_;
};

class SqlDb {
 public:
  // A PostgreSQL URL (postgresql://…, postgres://…) or a SQLite file, created if absent
  // (`sqlite:` before the path is allowed). The busy timeout is SQLite's wait for writers.
  static Result<SqlDb> open(std::string_view target, int busy_timeout_ms);
  static bool is_postgres_url(std::string_view target);
  SqlDb() = default;
  explicit SqlDb(std::unique_ptr<SqlConnection> c) : c_(std::move(c)) {}

  SqlEngine engine() const { return c_->engine(); }
  const std::string& name() const { return c_->name(); }
  SqlConnection& connection() { return *c_; }
  Result<void> exec(const std::string& sql) { return c_->exec(sql); }
  Result<SqlStmt> prepare(std::string_view sql);
  Result<int64_t> query_int(std::string_view sql);  // first column of the first row

 private:
  std::unique_ptr<SqlConnection> c_;
};

// Starts a writing transaction on construction (waiting up to SQLite's busy timeout); ROLLBACK
// on destruction unless commit() succeeded.
class SqlTransaction {
 public:
  explicit SqlTransaction(SqlDb& db);
  ~SqlTransaction();
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;
  const Result<void>& begun() const { return begun_; }
  Result<void> commit();

 private:
  SqlDb& db_;
  Result<void> begun_;
  bool open_ = false;
};

// The first column of the first row of `sql`, as an integer.
Result<int64_t> sql_query_int(SqlConnection& c, std::string_view sql);

// The engines (results/sql_sqlite.cc, results/sql_postgres.cc).
Result<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& file, int busy_timeout_ms);
Result<std::unique_ptr<SqlConnection>> open_postgres(const std::string& url);
// "postgresql://user:secret@host/db" -> "postgresql://user@host/db".
std::string redact_url(std::string_view url);

}  // namespace foliolab
