// The PostgreSQL engine of results/sql.h: libpq, a postgresql:// URL.
#pragma once

#include <memory>
#include <string>

#include "results/sql_connection.h"
#include "util/result.h"

namespace foliolab {

Result<std::unique_ptr<SqlConnection>> open_postgres(const std::string& url);

}  // namespace foliolab
