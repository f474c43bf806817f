// What a lab server does with the gate's verdicts and with bisections, once a request has been
// let in (server/lab_server.cc routes to these and checks tokens): each returns the reply.
//
// - A gate.json pushed for a stored session: checked, its cases and known-issue matches
//   replace the session's earlier ones in one transaction (results/finding_index.h).
// - A bisect.json pushed as <experiment>/<bisect dir>: parsed as a bisection log, kept under
//   <store>/bisections/ (renamed into place whole) and indexed (results/bisect_index.h) in one
//   transaction; a log that does not parse changes nothing.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "results/index.h"

namespace foliolab {

struct LabReply {
  int status = 200;
  std::string body;
  std::string type = "application/json";
};

LabReply store_gate_report(ResultIndex& index, const std::string& session, std::string_view body);
LabReply gate_cases_reply(ResultIndex& index, const std::string& metric);

LabReply store_bisection(ResultIndex& index, const std::filesystem::path& store,
                         const std::string& experiment, const std::string& dir,
                         std::string_view body);
// The log as pushed.
LabReply bisection_log_reply(const std::filesystem::path& store, const std::string& experiment,
                             const std::string& dir);
// The dashboard's page of one bisection: its steps with their sessions, its confirmations.
LabReply bisection_page_reply(ResultIndex& index, const std::string& experiment,
                              const std::string& dir);

}  // namespace foliolab
