// The lab server's own pages (server/lab_server.h): the sessions it holds, with filters and
// links to each session's report, a metric's history and a comparison of two sessions, and the
// bisections it knows. One self-contained HTML page each (inline CSS, no external assets); the
// session, history and comparison pages are report/html.h's.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "results/pushed_sessions.h"

namespace foliolab {

struct BisectionRow {
  std::string path, experiment, metric, state, culprit, updated;
  int candidates = 0;
};

void write_sessions_page(const std::vector<PushedSession>& sessions, const SessionFilter& filter,
                         std::ostream& out);
void write_bisections_page(const std::vector<BisectionRow>& rows, std::ostream& out);
// A page saying what went wrong (a missing session, a metric with no samples).
void write_message_page(const std::string& title, const std::string& message, std::ostream& out);

}  // namespace foliolab
