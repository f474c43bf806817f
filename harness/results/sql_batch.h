// Many rows of one INSERT in few statements: a push of a 2,000-run session is some 100,000 rows
// (runs, samples, counter deltas, knobs, provenance), and one statement a row is one round trip
// a row to a PostgreSQL server. A batch collects its rows and sends them as multi-row INSERTs
// of at most kMaxBatchParameters parameters (well under SQLite's 32,766 and PostgreSQL's 65,535)
// and about kMaxBatchBytes of text each, inside the caller's transaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "results/sql.h"
#include "util/result.h"

namespace foliolab {

inline constexpr size_t kMaxBatchParameters = 8192;
inline constexpr size_t kMaxBatchBytes = size_t{4} << 20;

using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;  // monostate: NULL

class SqlBatch {
 public:
  // `head`: "INSERT INTO t(a, b)"; `tail`: what follows the VALUES (ON CONFLICT ..., RETURNING
  // ...), the same for every statement.
  SqlBatch(SqlDb& db, std::string head, size_t columns, std::string tail = "");

  // One row of `columns` values.
  void add(std::vector<SqlValue> row);
  size_t rows() const { return rows_.size(); }
  // Sends every row; `returned` is called with each row a RETURNING tail gives back.
  Result<void> flush(const std::function<void(const SqlStmt&)>& returned = {});

 private:
  Result<void> send(size_t first, size_t count, const std::function<void(const SqlStmt&)>& f);
  SqlDb& db_;
  std::string head_, tail_;
  size_t columns_;
  std::vector<std::vector<SqlValue>> rows_;
  std::vector<size_t> bytes_;  // text bytes of each row
};

}  // namespace foliolab
