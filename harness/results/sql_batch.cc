#include "results/sql_batch.h"

#include <algorithm>
#include <utility>

namespace foliolab {

SqlBatch::SqlBatch(SqlDb& db, std::string head, size_t columns, std::string tail)
    : db_(db), head_(std::move(head)), tail_(std::move(tail)), columns_(columns) {}

void SqlBatch::add(std::vector<SqlValue> row) {
  size_t bytes = 0;
  for (const SqlValue& v : row) {
    if (const auto* s = std::get_if<std::string>(&v)) bytes += s->size();
  }
  rows_.push_back(std::move(row));
  bytes_.push_back(bytes);
}

Result<void> SqlBatch::send(size_t first, size_t count,
                            const std::function<void(const SqlStmt&)>& returned) {
  std::string group = "(";
  for (size_t c = 0; c < columns_; ++c) group += c ? ",?" : "?";
  group += ")";
  std::string sql = head_ + " VALUES";
  sql.reserve(sql.size() + count * (group.size() + 1) + tail_.size());
  for (size_t i = 0; i < count; ++i) sql += (i ? "," : "") + group;
  sql += tail_;
  auto stmt = db_.prepare(sql);
  if (!stmt.ok()) return stmt.error();
  int index = 0;
  for (size_t r = first; r < first + count; ++r) {
    for (const SqlValue& v : rows_[r]) {
      ++index;
      if (const auto* i = std::get_if<int64_t>(&v)) {
        stmt->bind(index, *i);
      } else if (const auto* d = std::get_if<double>(&v)) {
        stmt->bind(index, *d);
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        stmt->bind(index, std::string_view(*s));
      } else {
        stmt->bind_null(index);
      }
    }
  }
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) return {};
    if (returned) returned(*stmt);
  }
}

Result<void> SqlBatch::flush(const std::function<void(const SqlStmt&)>& returned) {
  const size_t per_statement = std::max<size_t>(1, kMaxBatchParameters / columns_);
  size_t first = 0;
  while (first < rows_.size()) {
    size_t count = 0, bytes = 0;
    while (first + count < rows_.size() && count < per_statement &&
           (count == 0 || bytes + bytes_[first + count] <= kMaxBatchBytes)) {
      bytes += bytes_[first + count];
      ++count;
    }
    FL_TRY(send(first, count, returned));
    first += count;
  }
  rows_.clear();
  bytes_.clear();
  return {};
}

}  // namespace foliolab
