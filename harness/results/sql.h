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

#include "results/sql_connection.h"
#include "util/result.h"

namespace foliolab {

class SqlStmt {
 public:
  SqlStmt() = default;
  SqlStmt(std::unique_ptr<SqlCursor> cursor, std::shared_ptr<int64_t> executions)
      : c_(std::move(cursor)), executions_(std::move(executions)) {}

  SqlStmt& bind(int index, int64_t value);
  SqlStmt& bind(int index, double value);
  SqlStmt& bind(int index, std::string_view value);
  SqlStmt& bind_null(int index);
  // NULL when the value is absent.
  SqlStmt& bind_or_null(int index, const std::optional<std::string>& value);
  SqlStmt& bind_or_null(int index, std::optional<int64_t> value);

  // true: a row is available; false: done.
  Result<bool> step() {
    if (fresh_ && executions_) ++*executions_;
    fresh_ = false;
    return c_->step();
  }
  // Runs to completion (for statements without rows), then resets for reuse.
  Result<void> run();
  // Each row in turn to `row` (which reads the columns), to the end.
  template <typename Row>
  Result<void> each_row(Row row) {
    for (;;) {
      auto more = step();
      if (!more.ok()) return more.error();
      if (!*more) return {};
      row(*this);
    }
  }
  void reset() {
    c_->reset();
    fresh_ = true;
  }

  int64_t column_int(int index) const { return c_->column_int(index); }
  double column_double(int index) const { return c_->column_double(index); }
  std::string column_text(int index) const { return c_->column_text(index); }
  bool column_is_null(int index) const { return c_->column_is_null(index); }
  int column_count() const { return c_->column_count(); }

 private:
  std::unique_ptr<SqlCursor> c_;
  std::shared_ptr<int64_t> executions_;  // the database's count
  bool fresh_ = true;                    // the next step() executes the statement
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
  // Statements executed through prepare() so far: each one a round trip to a PostgreSQL
  // server (what a push's cost is counted in, results/sql_batch.h).
  int64_t statements_executed() const { return *executions_; }

 private:
  std::unique_ptr<SqlConnection> c_;
  std::shared_ptr<int64_t> executions_ = std::make_shared<int64_t>(0);
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

}  // namespace foliolab
