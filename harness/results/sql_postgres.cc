// The PostgreSQL engine of results/sql.h: libpq, text parameters and results. A statement's
// `?` parameters become $1, $2, … ; the schema steps, written for SQLite, are read with
// PostgreSQL's types (ddl()).
#include <libpq-fe.h>

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <utility>
#include <vector>

#include "results/sql_postgres.h"

namespace foliolab {
namespace {

// `?` outside quotes -> $1, $2, ...
std::string numbered_parameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  char quote = 0;
  int n = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?') {
      out += fmt::format("${}", ++n);
      continue;
    }
    out += c;
  }
  return out;
}

std::string result_error(const PGresult* res, PGconn* conn) {
  std::string text = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

class PgCursor final : public SqlCursor {
 public:
  PgCursor(PGconn* conn, const std::string* name, std::string sql)
      : conn_(conn), name_(name), sql_(std::move(sql)) {}

  void bind_int(int i, int64_t v) override { set(i, std::to_string(v)); }
  void bind_double(int i, double v) override { set(i, fmt::format("{}", v)); }
  void bind_text(int i, std::string_view v) override { set(i, std::string(v)); }
  void bind_null(int i) override { set(i, std::nullopt); }

  Result<bool> step() override {
    if (!res_) {
      std::vector<const char*> values;
      for (const auto& p : params_) values.push_back(p ? p->c_str() : nullptr);
      res_.reset(PQexecParams(conn_, sql_.c_str(), static_cast<int>(values.size()), nullptr,
                              values.data(), nullptr, nullptr, 0));
      const ExecStatusType st = res_ ? PQresultStatus(res_.get()) : PGRES_FATAL_ERROR;
      if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        std::string message = result_error(res_.get(), conn_);
        res_.reset();
        return make_error(fmt::format("{}: {}", *name_, message));
      }
      row_ = -1;
    }
    return ++row_ < PQntuples(res_.get());
  }
  void reset() override {
    res_.reset();
    params_.clear();
  }

  int64_t column_int(int i) const override { return std::strtoll(value(i), nullptr, 10); }
  double column_double(int i) const override { return std::strtod(value(i), nullptr); }
  std::string column_text(int i) const override { return value(i); }
  bool column_is_null(int i) const override { return PQgetisnull(res_.get(), row_, i) != 0; }
  int column_count() const override { return res_ ? PQnfields(res_.get()) : 0; }

 private:
  void set(int index, std::optional<std::string> v) {
    if (static_cast<int>(params_.size()) < index) params_.resize(static_cast<size_t>(index));
    params_[static_cast<size_t>(index - 1)] = std::move(v);
  }
  const char* value(int i) const { return PQgetvalue(res_.get(), row_, i); }
  PGconn* conn_;
  const std::string* name_;
  std::string sql_;
  std::vector<std::optional<std::string>> params_;
  PgResult res_;
  int row_ = -1;
};

// A fixed key for the advisory lock migrators take ("foliolab" in ASCII, truncated).
constexpr int64_t kSchemaLockKey = 0x666f6c696f6c6162;

class PgConnection final : public SqlConnection {
 public:
  PgConnection(PGconn* conn, std::string name) : conn_(conn), name_(std::move(name)) {}
  ~PgConnection() override { PQfinish(conn_); }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  SqlEngine engine() const override { return SqlEngine::kPostgres; }
  const std::string& name() const override { return name_; }

  Result<void> exec(const std::string& sql) override {
    PgResult res(PQexec(conn_, sql.c_str()));
    const ExecStatusType st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      return make_error(fmt::format("{}: {}", name_, result_error(res.get(), conn_)));
    }
    return {};
  }

  Result<std::unique_ptr<SqlCursor>> prepare(std::string_view sql) override {
    return std::unique_ptr<SqlCursor>(
        std::make_unique<PgCursor>(conn_, &name_, numbered_parameters(sql)));
  }

  const char* begin_sql() const override { return "BEGIN"; }
  Result<void> lock_schema() override {
    return exec(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLockKey));
  }
  Result<int> schema_version() override {
    FL_TRY(exec("CREATE TABLE IF NOT EXISTS foliolab_schema(version INTEGER NOT NULL)"));
    FL_TRY(
        exec("INSERT INTO foliolab_schema(version) SELECT 0 WHERE NOT EXISTS "
             "(SELECT 1 FROM foliolab_schema)"));
    auto v = sql_query_int(*this, "SELECT version FROM foliolab_schema");
    if (!v.ok()) return v.error();
    return static_cast<int>(*v);
  }
  Result<void> set_schema_version(int version) override {
    return exec(fmt::format("UPDATE foliolab_schema SET version = {}", version));
  }

  // SQLite's types as PostgreSQL's: 64-bit integers and ids, double precision, byte-wise text
  // order (as SQLite compares text), no rowid clause, JSON arrays and booleans spelled out.
  std::string ddl(std::string_view sqlite_ddl) const override {
    static const std::pair<std::regex, const char*> kRewrites[] = {
        {std::regex(R"(\bINTEGER PRIMARY KEY\b)"), "BIGSERIAL PRIMARY KEY"},
        {std::regex(R"(\bINTEGER\b)"), "BIGINT"},
        {std::regex(R"(\bREAL\b)"), "DOUBLE PRECISION"},
        {std::regex(R"(\bTEXT\b)"), "TEXT COLLATE \"C\""},
        {std::regex(R"( WITHOUT ROWID)"), ""},
        {std::regex(R"(json_each\((\w+)\.(\w+)\) (\w+))"),
         "json_array_elements_text($1.$2::json) AS $3(value)"},
        {std::regex(R"(CASE WHEN (\w+)\.confirmed THEN)"), "CASE WHEN $1.confirmed <> 0 THEN"},
    };
    std::string out(sqlite_ddl);
    for (const auto& [from, to] : kRewrites) out = std::regex_replace(out, from, to);
    return out;
  }
  std::string seconds_between(std::string_view from, std::string_view to) const override {
    return fmt::format(
        "EXTRACT(EPOCH FROM (CAST(NULLIF({1}, '') AS timestamptz) - "
        "CAST(NULLIF({0}, '') AS timestamptz)))",
        from, to);
  }

 private:
  PGconn* conn_;
  std::string name_;
};

void ignore_notice(void*, const char*) {}

}  // namespace

Result<std::unique_ptr<SqlConnection>> open_postgres(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  const std::string name = redact_url(url);
  if (!conn || PQstatus(conn) != CONNECTION_OK) {
    std::string message = conn ? result_error(nullptr, conn) : "out of memory";
    PQfinish(conn);
    return make_env_error(fmt::format("cannot connect to {}: {}", name, message));
  }
  // CREATE TABLE IF NOT EXISTS and friends say NOTICE on stderr; nothing below cli/ prints.
  PQsetNoticeProcessor(conn, ignore_notice, nullptr);
  auto c = std::make_unique<PgConnection>(conn, name);
  FL_TRY(c->exec("SET client_encoding = 'UTF8'"));
  return std::unique_ptr<SqlConnection>(std::move(c));
}

}  // namespace foliolab
