// What the index holds of bisections (results/bisect_index.h writes it), read back for a lab
// server's pages and API: every bisection's row, and one bisection's steps and confirmations.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/sql.h"
#include "util/result.h"

namespace foliolab {

struct IndexedBisection {
  std::string path;  // <experiment>/bisect-<stamp>
  std::string experiment, metric, selection, state, culprit, started, updated;
  int candidates = 0;
};

struct IndexedBisectStep {
  int ordinal = 0;
  std::string candidate;  // its name ("" when the log names none)
  std::string cls;        // "good", "bad", ...; "" when skipped
  std::string session;    // the session that measured it, "" if none
  std::string evidence;
};

struct IndexedBisectConfirmation {
  std::string culprit, parent;  // candidates' names
  bool confirmed = false;
  std::string evidence;
  std::vector<std::string> sessions;
};

struct IndexedBisectionDetail {
  IndexedBisection bisection;
  std::vector<IndexedBisectStep> steps;
  std::vector<IndexedBisectConfirmation> confirmations;
};

// Newest first.
Result<std::vector<IndexedBisection>> list_bisections(SqlDb& db);
// nullopt: no such bisection.
Result<std::optional<IndexedBisectionDetail>> bisection_detail(SqlDb& db, const std::string& path);

}  // namespace foliolab
