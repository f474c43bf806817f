// The SQLite engine of results/sql.h: a file, created if absent.
#pragma once

#include <memory>
#include <string>

#include "results/sql_connection.h"
#include "util/result.h"

namespace foliolab {

Result<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& file, int busy_timeout_ms);

}  // namespace foliolab
