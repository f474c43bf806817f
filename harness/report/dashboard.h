// The lab server's own pages (server/lab_server.h): the sessions it holds, with filters and
// links to each session's report, a metric's history and a comparison of two sessions, and the
// bisections it knows, each with its steps. One self-contained HTML page each (inline CSS, no
// external assets); the session, history and comparison pages are report/html.h's.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "results/bisect_query.h"
#include "results/pushed_sessions.h"

namespace foliolab {

void write_sessions_page(const std::vector<PushedSession>& sessions, const SessionFilter& filter,
                         std::ostream& out);
void write_bisections_page(const std::vector<IndexedBisection>& rows, std::ostream& out);
// One bisection: what it followed, its steps (candidate, class, evidence, a link to the session
// that measured it) and its confirmations.
void write_bisection_page(const IndexedBisectionDetail& detail, std::ostream& out);
// A page saying what went wrong (a missing session, a metric with no samples).
void write_message_page(const std::string& title, const std::string& message, std::ostream& out);

}  // namespace foliolab
