// `foliolab bisect`'s bisections in the index (schema 4): each
// <results root>/<experiment>/bisect-<stamp>/bisect.json (results/bisect_log.h's BisectLog,
// which stays the source of truth) as one row of `bisections`, its observations as rows of
// `bisect_steps` and its confirmations as rows of `bisect_confirmations`. A step names its
// session by the key of `sessions.path` (<experiment>/<stamp>), so SQL joins a step to its runs;
// the view `bisect_sessions` lists every session a bisection used, steps and confirmations.
//
// The log does not say how the search ended, so `state` is read from what it holds: "started"
// (no step yet), "confirmed" / "unconfirmed" (a culprit was confirmed / none of the confirmed
// ones held), "does not reproduce" (both ends seen, one class), "endpoint skipped" (an end could
// not be decided), else "searching" (also a search that ended with nothing to confirm).
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "results/bisect_log.h"
#include "results/index.h"
#include "results/sql.h"
#include "util/result.h"

namespace foliolab {

// Reads <dir>/bisect.json and replaces the bisection's rows (its directory, relative to the
// root, is its key; the row id stays), in one transaction. Call it after each step or at the end.
Result<void> index_bisection(ResultIndex& index, const std::filesystem::path& dir);

// The same inside the caller's transaction on `db`, the index of `root`.
Result<void> write_bisection(SqlDb& db, const std::filesystem::path& root,
                             const std::filesystem::path& dir);

// Every <root>/<experiment>/bisect-*/bisect.json, in the caller's transaction (`index rebuild`);
// a log that cannot be read is reported through `warn` and skipped. Returns how many were indexed.
Result<int> write_bisections_under(SqlDb& db, const std::filesystem::path& root,
                                   const std::function<void(const std::string&)>& warn);

}  // namespace foliolab
