// Which indexed runs a question is about: `--where kernel=6.12,arch=x86_64,since=2026-11-01`
// parsed into a RunQuery, and the SQL clauses the index (results/index.h) selects with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace foliolab {

// A selection of indexed runs: every non-empty field must match. `since`/`until` compare with
// the session stamp (20261130T051430Z); dates like 2026-11-30 are accepted.
struct RunQuery {
  std::string experiment, kernel, arch, knobs, workload, session, since, until;
  bool include_failed = false;
  bool empty() const;
};

// "kernel=6.12,arch=x86_64,since=2026-11-01" (keys: experiment kernel arch knobs workload
// session since until). Unknown keys are errors with a "did you mean".
Result<RunQuery> parse_run_query(std::string_view text);
// Fields of `extra` override those of `base`.
RunQuery merge_queries(RunQuery base, const RunQuery& extra);

// " AND ..." clauses over runs r JOIN sessions se for the query, their parameters appended to
// *params in order.
std::string run_query_sql(const RunQuery& q, std::vector<std::string>* params);

}  // namespace foliolab
