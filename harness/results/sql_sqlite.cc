// The SQLite engine of results/sql.h: libsqlite3's C API, one file.
#include <sqlite3.h>

#include <fmt/format.h>

#include <utility>

#include "results/sql_sqlite.h"

namespace foliolab {
namespace {

class SqliteCursor final : public SqlCursor {
 public:
  SqliteCursor(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteCursor() override { sqlite3_finalize(stmt_); }
  SqliteCursor(const SqliteCursor&) = delete;
  SqliteCursor& operator=(const SqliteCursor&) = delete;

  void bind_int(int i, int64_t v) override { check(i, sqlite3_bind_int64(stmt_, i, v)); }
  void bind_double(int i, double v) override { check(i, sqlite3_bind_double(stmt_, i, v)); }
  void bind_text(int i, std::string_view v) override {
    check(i, sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind_null(int i) override { check(i, sqlite3_bind_null(stmt_, i)); }

  Result<bool> step() override {
    if (!bind_error_.empty()) return make_error(std::exchange(bind_error_, ""));
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return make_error(fmt::format("sqlite: {}", sqlite3_errmsg(db_)));
  }
  void reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  int64_t column_int(int i) const override { return sqlite3_column_int64(stmt_, i); }
  double column_double(int i) const override { return sqlite3_column_double(stmt_, i); }
  std::string column_text(int i) const override {
    const unsigned char* text = sqlite3_column_text(stmt_, i);
    return text ? std::string(reinterpret_cast<const char*>(text),
                              static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
                : std::string();
  }
  bool column_is_null(int i) const override { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  int column_count() const override { return sqlite3_column_count(stmt_); }

 private:
  // A failed bind is remembered and reported by the next step().
  void check(int index, int rc) {
    if (rc != SQLITE_OK && bind_error_.empty()) {
      bind_error_ = fmt::format("binding parameter {}: {}", index, sqlite3_errmsg(db_));
    }
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string bind_error_;
};

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string file) : db_(db), file_(std::move(file)) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  SqlEngine engine() const override { return SqlEngine::kSqlite; }
  const std::string& name() const override { return file_; }

  Result<void> exec(const std::string& sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      return make_error(fmt::format("{}: {}", file_, text));
    }
    return {};
  }

  Result<std::unique_ptr<SqlCursor>> prepare(std::string_view sql) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
        SQLITE_OK) {
      return make_error(fmt::format("{}: {}", file_, sqlite3_errmsg(db_)));
    }
    return std::unique_ptr<SqlCursor>(std::make_unique<SqliteCursor>(db_, stmt));
  }

  const char* begin_sql() const override { return "BEGIN IMMEDIATE"; }
  Result<void> lock_schema() override { return {}; }
  Result<int> schema_version() override {
    auto v = sql_query_int(*this, "PRAGMA user_version");
    if (!v.ok()) return v.error();
    return static_cast<int>(*v);
  }
  Result<void> set_schema_version(int version) override {
    return exec(fmt::format("PRAGMA user_version = {}", version));
  }
  std::string ddl(std::string_view sqlite_ddl) const override { return std::string(sqlite_ddl); }
  std::string seconds_between(std::string_view from, std::string_view to) const override {
    return fmt::format("(julianday(NULLIF({1}, '')) - julianday(NULLIF({0}, ''))) * 86400", from,
                       to);
  }

 private:
  sqlite3* db_;
  std::string file_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& file, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return make_error(fmt::format("cannot open {}: {}", file, message));
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<SqlConnection>(std::make_unique<SqliteConnection>(db, file));
}

}  // namespace foliolab
