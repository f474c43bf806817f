#include "results/sqlite.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <utility>

namespace foliolab {

SqliteStmt::~SqliteStmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

SqliteStmt::SqliteStmt(SqliteStmt&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      bind_error_(std::move(other.bind_error_)) {}

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    bind_error_ = std::move(other.bind_error_);
  }
  return *this;
}

namespace {
std::string bind_failure(sqlite3* db, int index) {
  return fmt::format("binding parameter {}: {}", index, sqlite3_errmsg(db));
}
}  // namespace

SqliteStmt& SqliteStmt::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK && bind_error_.empty()) {
    bind_error_ = bind_failure(db_, index);
  }
  return *this;
}

SqliteStmt& SqliteStmt::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK && bind_error_.empty()) {
    bind_error_ = bind_failure(db_, index);
  }
  return *this;
}

SqliteStmt& SqliteStmt::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK &&
      bind_error_.empty()) {
    bind_error_ = bind_failure(db_, index);
  }
  return *this;
}

SqliteStmt& SqliteStmt::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK && bind_error_.empty()) {
    bind_error_ = bind_failure(db_, index);
  }
  return *this;
}

Result<bool> SqliteStmt::step() {
  if (!bind_error_.empty()) return make_error(std::exchange(bind_error_, ""));
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return make_error(fmt::format("sqlite: {}", sqlite3_errmsg(db_)));
}

Result<void> SqliteStmt::run() {
  Result<bool> r = false;
  do {
    r = step();
  } while (r.ok() && *r);
  reset();
  if (!r.ok()) return r.error();
  return {};
}

void SqliteStmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

SqliteStmt& SqliteStmt::bind_or_null(int index, const std::optional<std::string>& value) {
  return value ? bind(index, std::string_view(*value)) : bind_null(index);
}

SqliteStmt& SqliteStmt::bind_or_null(int index, std::optional<int64_t> value) {
  return value ? bind(index, *value) : bind_null(index);
}

int64_t SqliteStmt::column_int(int i) const { return sqlite3_column_int64(stmt_, i); }
double SqliteStmt::column_double(int i) const { return sqlite3_column_double(stmt_, i); }
std::string SqliteStmt::column_text(int i) const {
  const unsigned char* text = sqlite3_column_text(stmt_, i);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
              : std::string();
}
int SqliteStmt::column_count() const { return sqlite3_column_count(stmt_); }

bool SqliteStmt::column_is_null(int i) const {
  return sqlite3_column_type(stmt_, i) == SQLITE_NULL;
}

Result<SqliteDb> SqliteDb::open(const std::filesystem::path& file, int busy_timeout_ms) {
  SqliteDb db;
  db.file_ = file;
  const int rc =
      sqlite3_open_v2(file.c_str(), &db.db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    return make_error(fmt::format("cannot open {}: {}", file.string(),
                                  db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db.db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db.db_, 1);
  return db;
}

SqliteDb::~SqliteDb() {
  if (db_) sqlite3_close_v2(db_);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), file_(std::move(other.file_)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    file_ = std::move(other.file_);
  }
  return *this;
}

Result<void> SqliteDb::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return make_error(fmt::format("{}: {}", file_.string(), text));
  }
  return {};
}

Result<SqliteStmt> SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return make_error(fmt::format("{}: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  return SqliteStmt(db_, stmt);
}

Result<int64_t> SqliteDb::query_int(std::string_view sql) {
  auto stmt = prepare(sql);
  if (!stmt.ok()) return stmt.error();
  auto row = stmt->step();
  if (!row.ok()) return row.error();
  if (!*row) return make_error(fmt::format("{}: no result for: {}", file_.string(), sql));
  return stmt->column_int(0);
}

int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
std::string SqliteDb::error_message() const { return sqlite3_errmsg(db_); }

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) {
  begun_ = db_.exec("BEGIN IMMEDIATE");
  open_ = begun_.ok();
}

SqliteTransaction::~SqliteTransaction() {
  if (open_) (void)db_.exec("ROLLBACK");
}

Result<void> SqliteTransaction::commit() {
  if (!open_) return begun_.ok() ? make_error("transaction already ended") : begun_;
  auto st = db_.exec("COMMIT");
  if (st.ok()) open_ = false;
  return st;
}

}  // namespace foliolab
