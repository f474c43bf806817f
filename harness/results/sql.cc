#include "results/sql.h"

#include "results/sql_postgres.h"
#include "results/sql_sqlite.h"

#include <fmt/format.h>

#include <utility>

namespace foliolab {

SqlStmt& SqlStmt::bind(int index, int64_t value) {
  c_->bind_int(index, value);
  return *this;
}

SqlStmt& SqlStmt::bind(int index, double value) {
  c_->bind_double(index, value);
  return *this;
}

SqlStmt& SqlStmt::bind(int index, std::string_view value) {
  c_->bind_text(index, value);
  return *this;
}

SqlStmt& SqlStmt::bind_null(int index) {
  c_->bind_null(index);
  return *this;
}

SqlStmt& SqlStmt::bind_or_null(int index, const std::optional<std::string>& value) {
  return value ? bind(index, std::string_view(*value)) : bind_null(index);
}

SqlStmt& SqlStmt::bind_or_null(int index, std::optional<int64_t> value) {
  return value ? bind(index, *value) : bind_null(index);
}

Result<void> SqlStmt::run() {
  Result<bool> r = false;
  do {
    r = step();
  } while (r.ok() && *r);
  reset();
  if (!r.ok()) return r.error();
  return {};
}

bool SqlDb::is_postgres_url(std::string_view target) {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

Result<SqlDb> SqlDb::open(std::string_view target, int busy_timeout_ms) {
  auto c = is_postgres_url(target)
               ? open_postgres(std::string(target))
               : open_sqlite(std::string(target.starts_with("sqlite:") ? target.substr(7) : target),
                             busy_timeout_ms);
  if (!c.ok()) return c.error();
  return SqlDb(std::move(*c));
}

Result<SqlStmt> SqlDb::prepare(std::string_view sql) {
  auto cursor = c_->prepare(sql);
  if (!cursor.ok()) return cursor.error();
  return SqlStmt(std::move(*cursor), executions_);
}

Result<int64_t> SqlDb::query_int(std::string_view sql) { return sql_query_int(*c_, sql); }

SqlTransaction::SqlTransaction(SqlDb& db) : db_(db) {
  begun_ = db_.exec(db_.connection().begin_sql());
  open_ = begun_.ok();
}

SqlTransaction::~SqlTransaction() {
  if (open_) (void)db_.exec("ROLLBACK");
}

Result<void> SqlTransaction::commit() {
  if (!open_) return begun_.ok() ? make_error("transaction already ended") : begun_;
  auto st = db_.exec("COMMIT");
  if (st.ok()) open_ = false;
  return st;
}

}  // namespace foliolab
