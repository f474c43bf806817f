#include "results/sql_connection.h"

#include <fmt/format.h>

namespace foliolab {

Result<int64_t> sql_query_int(SqlConnection& c, std::string_view sql) {
  auto cursor = c.prepare(sql);
  if (!cursor.ok()) return cursor.error();
  auto row = (*cursor)->step();
  if (!row.ok()) return row.error();
  if (!*row) return make_error(fmt::format("{}: no result for: {}", c.name(), sql));
  return (*cursor)->column_int(0);
}

std::string redact_url(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t at = url.find('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos || at < scheme) {
    return std::string(url);
  }
  const std::string_view userinfo = url.substr(scheme + 3, at - scheme - 3);
  const size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) return std::string(url);
  return fmt::format("{}{}{}", url.substr(0, scheme + 3), userinfo.substr(0, colon),
                     url.substr(at));
}

}  // namespace foliolab
